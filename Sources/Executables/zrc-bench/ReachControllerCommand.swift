import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage
import ZRCReach

/// The controller `reach` measures, in the NAT laboratory's controller namespace. Pairs with the
/// invite on stdin (over the LAN link) and says `paired`; then, one result line per command:
///
/// - `setup N PREFERENCE` → `setup P50 P95 PATH` (ms from asking to connect to a usable session)
/// - `open` → `open WxH PATH` (the session the following commands use)
/// - `pings N` → `pings P50 P95` (ms)
/// - `clicks N PAUSE_MS` and `watch SECONDS` as `link-controller` answers them
struct ReachControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach-controller", abstract: "The controller `reach` measures.", shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file.") var directory: String
    @Option(help: "PseudoTCP window on a direct path, bytes (default: the product's).") var directWindow: Int?

    func run() async throws {
        var input = StandardInputLines.stream().makeAsyncIterator()
        guard let invite = await input.next() else { throw ValidationError("reach-controller reads an invite on stdin") }
        var logger = Logger(label: "zrc-bench.reach-controller")
        logger.logLevel = .error
        let crypto = try SodiumCrypto()
        let identity = crypto.generateKeyPair()
        let knownHosts = URL(fileURLWithPath: directory).appendingPathComponent("known-hosts.json")
        func controller(_ preference: TransportPreference) throws -> ZRCController {
            var config = ControllerConfig()
            config.transportPreference = preference
            var reach = ReachWiring.controllerReach(config)
            reach.lan = nil  // the laboratory has no avahi-daemon
            if let directWindow { reach.ice.window = directWindow }
            return try ZRCController.bench(identity: identity, crypto: crypto, knownHosts: knownHosts, reach: reach, logger: logger)
        }
        _ = try await controller(.auto).pair(inviteText: invite, name: "bench")
        say("paired")
        var session: ControllerSession?
        var measurements: LinkMeasurements?
        while let command = await input.next() {
            let words = command.split(separator: " ").map(String.init)
            switch words.first {
            case "setup":
                guard words.count == 3, let count = Int(words[1]), let preference = TransportPreference(rawValue: words[2]) else {
                    throw ValidationError("bad command \(command)")
                }
                let dialer = try controller(preference)
                var times = Samples()
                var path = ""
                for _ in 0..<count {
                    let start = ContinuousClock.now
                    let opened = try await dialer.connect(to: "bench")
                    times.add(ContinuousClock.now - start)
                    path = "\(opened.path)"
                    await opened.close()
                    _ = await opened.waitUntilEnded()
                }
                say("setup \(times.percentile(0.5)) \(times.percentile(0.95)) \(path)")
            case "open":
                // The set-up runs' sessions may still be ending at the host, and while one is in
                // control a new session gets view-only (clicks would be refused): wait for control.
                var opened = try await controller(.auto).connect(to: "bench")
                for _ in 0..<50 where opened.granted.contains(.viewOnly) {
                    await opened.close()
                    _ = await opened.waitUntilEnded()
                    try await Task.sleep(for: .milliseconds(100))
                    opened = try await controller(.auto).connect(to: "bench")
                }
                let viewer = ZRCMeasuredViewer(session: opened)
                var size: (width: Int, height: Int)?
                for _ in 0..<60_000 where size == nil {
                    size = await viewer.size()
                    if size == nil { try await Task.sleep(for: .milliseconds(1)) }
                }
                guard let size else { throw ValidationError("no picture within 60 s") }
                session = opened
                measurements = LinkMeasurements(viewer: viewer, width: size.width, height: size.height)
                say("open \(size.width)x\(size.height) \(opened.path)")
            case "pings":
                guard words.count == 2, let count = Int(words[1]), let session else { throw ValidationError("bad command \(command)") }
                var times = Samples()
                for _ in 0..<count {
                    times.add(try await session.ping())
                    try await Task.sleep(for: .milliseconds(20))
                }
                say("pings \(times.percentile(0.5)) \(times.percentile(0.95))")
            case "clicks":
                guard words.count == 3, let count = Int(words[1]), let pause = Int(words[2]), let measurements else {
                    throw ValidationError("bad command \(command)")
                }
                say(try await measurements.clicks(count: count, pause: pause))
            case "watch":
                guard words.count == 2, let seconds = Double(words[1]), let measurements else { throw ValidationError("bad command \(command)") }
                say(try await measurements.watch(seconds: seconds))
            default:
                throw ValidationError("unknown command \(command)")
            }
        }
        await session?.close()
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
