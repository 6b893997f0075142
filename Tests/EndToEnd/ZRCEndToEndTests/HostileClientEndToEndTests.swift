import Foundation
import Testing

/// A real `zrc-host serve` closes garbage, oversized and stalled connections with a logged reason,
/// while a paired controller's session keeps working.
@Suite struct HostileClientEndToEndTests {
    @Test func hostileConnectionsAreClosedAndLoggedWhileASessionContinues() async throws {
        let env = try EndToEndEnvironment()
        defer { env.cleanUp() }
        let hostKey = "host-\(env.tag)"
        let controllerKey = "ctl-\(env.tag)"
        let (host, address) = try await env.startHost(keyID: hostKey)
        let port = UInt16(address.split(separator: ":").last!)!
        let invite = try await env.invite(keyID: hostKey)
        let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey], role: "controller")
        #expect(pair.status == 0, "\(pair.stderr)")
        let pinger = try env.launch("zrc-ctl", ["ping", "desk", "--count", "40", "--interval", "1s", "--key-id", controllerKey],
                                    role: "controller")
        #expect(await pinger.waitForOutput("reply 1:"))

        var random = SystemRandomNumberGenerator()
        let garbage = (0..<2048).map { _ in UInt8.random(in: 0...255, using: &random) }
        let preamble = Array("ZRCP".utf8) + [0, 1, 0, 0]
        let cases: [(String, [UInt8], String)] = [
            ("random bytes", [0x00] + garbage, "not a ZRC controller"),
            ("an oversized length", preamble + [0x01, 0xFF, 0xFF, 0xFF, 0xFF], "limit is 65535"),
            ("a truncated handshake", preamble + [0x01, 0x00, 0x00, 0x00, 0x60, 0x02, 0x03], "message 1 not completed within"),
            ("a stalled handshake", [], "handshake not completed within"),
        ]
        for (name, bytes, logged) in cases {
            let outcome = try RawSocket.send(bytes, toPort: port, wait: .seconds(12))
            guard case .closedByPeer = outcome else {
                Issue.record("\(name): the host left the connection open")
                continue
            }
            #expect(await host.waitForOutput(logged), "\(name): \(host.stderr)")
        }
        let before = pinger.stdout.components(separatedBy: "reply ").count
        try await Task.sleep(for: .seconds(2))
        #expect(pinger.isRunning, "the paired session survived: \(pinger.stderr)")
        #expect(pinger.stdout.components(separatedBy: "reply ").count > before, "and keeps getting replies")
        await pinger.terminate()
        await host.terminate()
    }
}
