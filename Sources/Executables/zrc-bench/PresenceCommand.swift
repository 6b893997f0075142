import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCKitTesting
import ZRCProtocol
import ZRCSodium
import ZRCStorage

/// `zrc-ctl devices --online`'s answer time: a controller paired with hosts of which some answer
/// and some never do, probed again and again.
struct PresenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Time `devices --online` (ZRCController.presence) with live and unreachable hosts against its deadline.",
        discussion: """
            Starts the live hosts (real host servers on loopback) and pairs one controller with each, then adds \
            the unreachable ones to its known hosts: half listen and never answer (a peer that holds the \
            connection), half are addresses of TEST-NET-1 (192.0.2.0/24) that nothing answers. Each run probes \
            them all at once and is timed from the call to the answer.
            """)

    @Option(help: "Hosts that answer.") var live = 5
    @Option(help: "Hosts that never answer.") var unreachable = 5
    @Option(help: "Runs.") var runs = 20
    @Option(help: "The deadline, milliseconds.") var deadlineMs = 2000

    func run() async throws {
        var harnesses: [HostHarness] = []
        for _ in 0..<live {
            let harness = try HostHarness()
            _ = try await harness.start()
            harnesses.append(harness)
        }
        // Peers that take the connection (the kernel completes it) and then say nothing.
        var silent: [SilentListener] = []
        defer { silent.forEach { $0.close() } }
        guard let first = harnesses.first else { throw ValidationError("--live must be at least 1") }
        let (controller, _) = first.controller(name: "bench")
        for (index, harness) in harnesses.enumerated() {
            _ = try await controller.pair(inviteText: try await harness.invite(), name: "live-\(index)")
        }
        let crypto = first.crypto
        for index in 0..<unreachable {
            let address: String
            if index % 2 == 0 {
                let listener = try SilentListener()
                silent.append(listener)
                address = "127.0.0.1:\(listener.port)"
            } else {
                address = "192.0.2.\(index + 1):7420"
            }
            try await controller.knownHosts.add(KnownHost(name: "away-\(index)", hostName: "away-\(index)",
                                                          publicKey: crypto.generateKeyPair().publicKey, addresses: [address], pairedAt: Date()))
        }
        let deadline = Duration.milliseconds(deadlineMs)
        print("zrc-bench presence: \(live) live hosts, \(unreachable) unreachable (\((unreachable + 1) / 2) silent listeners, "
            + "\(unreachable / 2) TEST-NET addresses), deadline \(deadlineMs) ms, \(runs) runs, "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
        var times = Samples()
        var onlineCounts: [Int] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let start = clock.now
            let report = try await controller.presence(within: deadline)
            times.add(clock.now - start)
            onlineCounts.append(report.count { if case .online = $0.state { true } else { false } })
        }
        print("answer time: \(times.summary)   max \(String(format: "%.1f", times.percentile(1))) ms   deadline \(deadlineMs) ms: "
            + (times.percentile(1) <= Double(deadlineMs) + 100 ? "met (within 100 ms of it)" : "MISSED"))
        print("online per run: min \(onlineCounts.min() ?? 0), max \(onlineCounts.max() ?? 0) of \(live) live")
        for harness in harnesses { await harness.stop() }
    }
}
