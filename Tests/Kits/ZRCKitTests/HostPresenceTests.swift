import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage
import ZRCKitTesting

/// `devices --online`: every paired host probed at once, each online with its path and round trip
/// or offline with the reason, and the answer at the deadline whatever the slowest probe does.
@Suite struct HostPresenceTests {
    @Test func liveHostsAreOnlineAndAnUnreachableOneOfflineWithTheReason() async throws {
        let one = try HostHarness()
        let two = try HostHarness()
        _ = try await one.start()
        _ = try await two.start()
        try await one.stoppingAfter {
            try await two.stoppingAfter {
                let (controller, _) = one.controller()
                _ = try await controller.pair(inviteText: try await one.invite(), name: "one")
                _ = try await controller.pair(inviteText: try await two.invite(), name: "two")
                // TEST-NET-1: nothing answers there (or nothing routes to it).
                try await controller.knownHosts.add(KnownHost(name: "away", hostName: "away", publicKey: one.crypto.generateKeyPair().publicKey,
                                                              addresses: ["192.0.2.1:7420"], pairedAt: Date()))
                let report = try await controller.presence(within: .seconds(120))
                #expect(report.map(\.name) == ["one", "two", "away"])
                for presence in report.prefix(2) {
                    guard case .online(let path, _) = presence.state else {
                        Issue.record("\(presence.name) is \(presence.state)")
                        continue
                    }
                    #expect(path.description.hasPrefix("direct TCP 127.0.0.1:"))
                }
                guard case .offline(let reason) = report[2].state else {
                    Issue.record("the unreachable host is \(report[2].state)")
                    return
                }
                #expect(!reason.isEmpty)
                // A probe that reached its host marked it seen.
                #expect(try await controller.knownHosts.host(named: "two").lastSeen != nil)
            }
        }
    }

    /// A host that takes the connection and never answers is offline at the deadline, with that
    /// reason; the call does not wait for the probe's own timeouts.
    @Test func aHostThatNeverAnswersIsOfflineAtTheDeadline() async throws {
        let harness = try HostHarness()
        let (controller, _) = harness.controller()
        let silent = try SilentListener()
        defer { silent.close() }
        try await controller.knownHosts.add(KnownHost(name: "silent", hostName: "silent", publicKey: harness.crypto.generateKeyPair().publicKey,
                                                      addresses: ["127.0.0.1:\(silent.port)"], pairedAt: Date()))
        let report = try await controller.presence(within: .milliseconds(300))
        #expect(report == [HostPresence(name: "silent", state: .offline(reason: "no answer within 300 ms"))])
    }
}
