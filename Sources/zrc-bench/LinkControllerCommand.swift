import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCNetworking

/// The laboratory's controller, run in the controller's namespace: pairs with the invite read
/// from stdin, connects, then runs the measurements `links` asks for on stdin, one result line
/// each (all times on the machine's monotonic clock, which namespaces share).
///
/// - `clicks N PAUSE_MS` → `clicks P50 P95 P99 LOST` (ms, click to decoded frame)
/// - `watch SECONDS` → `watch UPDATES_PER_S BYTES_PER_S QUEUE_MS_MAX IN_FLIGHT_MAX RATE` (the host's
///   link statistics: worst queueing and bytes in flight seen, newest rate)
/// - `settle HASH TIMEOUT_MS` → `settle MS` once the picture's `PixelHash` is HASH, or `settle timeout`
struct LinkControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link-controller", abstract: "The network laboratory's controller (used by `links`).", shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file.")
    var directory: String

    func run() async throws {
        var input = StandardInputLines.stream().makeAsyncIterator()
        guard let invite = await input.next() else { throw ValidationError("the link controller reads an invite on stdin") }
        let session = try await ControllerSession.bench(invite: invite, directory: directory, label: "zrc-bench.link-controller")
        var first: ComposedFrame?
        for _ in 0..<60_000 where first == nil {
            first = await session.pollFrame()
            if first == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        guard let first else { throw ValidationError("no frame within 60 s") }
        say("connected \(first.pixels.width)x\(first.pixels.height)")
        while let command = await input.next() {
            let words = command.split(separator: " ").map(String.init)
            switch words.first {
            case "clicks":
                guard words.count == 3, let count = Int(words[1]), let pause = Int(words[2]) else { throw ValidationError("bad command \(command)") }
                let results = try await LatencyTrials(session: session, width: first.pixels.width, height: first.pixels.height, pause: pause)
                    .run(trials: count, warmUp: 3)
                say(String(format: "clicks %.3f %.3f %.3f %d", results.percentile(0.5), results.percentile(0.95), results.percentile(0.99),
                           results.lost))
            case "watch":
                guard words.count == 2, let seconds = Double(words[1]) else { throw ValidationError("bad command \(command)") }
                say(try await watch(session, seconds: seconds))
            case "settle":
                guard words.count == 3, let hash = UInt64(words[1]), let timeout = UInt64(words[2]) else { throw ValidationError("bad command \(command)") }
                say(try await settle(session, hash: hash, timeoutMillis: timeout))
            default:
                throw ValidationError("unknown command \(command)")
            }
        }
        await session.close()
    }

    private func watch(_ session: ControllerSession, seconds: Double) async throws -> String {
        let started = WireClock.monotonicMicros()
        let versionBefore = await session.pollFrame()?.version ?? 0
        let bytesBefore = await session.receivedBytes()
        var queueMax: UInt64 = 0, inFlightMax: UInt32 = 0
        while Double(WireClock.monotonicMicros() &- started) < seconds * 1_000_000 {
            if let stats = await session.linkStats {
                queueMax = max(queueMax, stats.queueMicros)
                inFlightMax = max(inFlightMax, stats.inFlightBytes)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = Double(WireClock.monotonicMicros() &- started) / 1_000_000
        let updates = Double((await session.pollFrame()?.version ?? versionBefore) - versionBefore) / elapsed
        let bytes = Double(await session.receivedBytes() - bytesBefore) / elapsed
        let rate = await session.linkStats?.deliveryRate ?? 0
        return String(format: "watch %.1f %.0f %.1f %d %d", updates, bytes, Double(queueMax) / 1000, inFlightMax, rate)
    }

    private func settle(_ session: ControllerSession, hash: UInt64, timeoutMillis: UInt64) async throws -> String {
        let started = WireClock.monotonicMicros()
        var checked: UInt64 = 0
        while WireClock.monotonicMicros() &- started < timeoutMillis * 1000 {
            if let frame = await session.pollFrame(newerThan: checked) {
                checked = frame.version
                if PixelHash.of(frame.pixels) == hash {
                    return String(format: "settle %.1f", Double(max(frame.decodedMicros, started) - started) / 1000)
                }
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return "settle timeout"
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
