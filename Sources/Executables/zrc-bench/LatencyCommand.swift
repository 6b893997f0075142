import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCHostKit
import ZRCHostX11
import ZRCNetworking
import ZRCProtocol
import ZRCSodium

/// Input-to-frame latency: the controller clicks, the probe flips colour, and the time until the
/// controller has decoded a frame showing the flip is measured, with where it went.
struct LatencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Measure click-to-decoded-frame latency through the real host and controller; print percentiles and a breakdown.",
        discussion: """
            Starts Xvfb at --size (unless --display is given), a probe client (in a child process) \
            whose centre square flips colour on every click, an in-process zrc host sharing the display \
            (XTest, XDamage, MIT-SHM, libjpeg-turbo, Noise over loopback TCP) and an in-process \
            controller. Each trial sends a click and waits for a decoded frame showing the other colour. \
            Host and controller read the same monotonic clock, so every stage is timed on one clock. \
            Then the terminal renderers draw that frame's change into a --columns x --rows terminal.
            """)

    @OptionGroup var screen: BenchScreenOptions

    @Option(help: "Measured trials (after 10 unmeasured ones).")
    var trials = 200

    @Option(help: "Pause between trials in milliseconds (a person clicks a few times a second at most).")
    var pause = 150

    @Option(help: "Viewers: with 2 or more, the trials run again while that many minus one more viewers (controller processes decoding every frame) watch too, and both results are printed.")
    var viewers = 1

    @Option(help: "Terminal size in cells for the renderer timings.")
    var columns = 200
    @Option(help: "Terminal size in cells for the renderer timings.")
    var rows = 60

    func validate() throws {
        guard (1...10_000).contains(trials) else { throw ValidationError("--trials must be between 1 and 10000") }
        guard (0...10_000).contains(pause) else { throw ValidationError("--pause must be between 0 and 10000 ms") }
        guard (1...8).contains(viewers) else { throw ValidationError("--viewers must be between 1 and 8") }
        guard (2...1000).contains(columns), (2...1000).contains(rows) else { throw ValidationError("--columns and --rows must be 2…1000") }
    }

    func run() async throws {
        try await screen.run { displayName, directory, logger in
            let probe = try BenchChild("the probe client", executable: BenchChild.selfExecutable, arguments: ["probe", "--display", displayName])
            defer { probe.stop() }
            try await probe.waitForLine("ready", timeout: .seconds(20))

            let source = try X11ScreenSource(displayName: displayName, monitor: nil, logger: logger)
            let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
            let host = try BenchHost(directory: directory, sharing: sharing, logger: logger)
            try await host.start()
            do {
                let session = try await connect(to: host, directory: directory, logger: logger)
                let shared = await source.size
                print("zrc-bench latency: display \(displayName) \(shared.width)x\(shared.height), capture via \(await source.captureMethod), "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(trials) clicks \(pause) ms apart over loopback")
                let trialRunner = LatencyTrials(session: session, width: shared.width, height: shared.height, pause: pause)
                let results = try await trialRunner.run(trials: trials, warmUp: 10)
                results.print()
                try RendererTimings(frames: results.frames, columns: columns, rows: rows).print()
                if viewers > 1 {
                    let others = try await host.startViewers(viewers - 1, directory: directory)
                    defer { for other in others { other.stop() } }
                    print("\nwith \(viewers - 1) more viewer(s) watching (controller processes decoding and acknowledging every frame):")
                    let shared = try await trialRunner.run(trials: trials, warmUp: 10)
                    shared.print()
                    if !shared.trials.isEmpty, !results.trials.isEmpty {
                        print(String(format: "p50 %.2f×, p99 %.2f× one viewer's", shared.percentile(0.5) / results.percentile(0.5),
                                     shared.percentile(0.99) / results.percentile(0.99)))
                    }
                }
                await session.close()
            } catch {
                await host.stop()
                throw error
            }
            await host.stop()
        }
    }

    private func connect(to host: BenchHost, directory: URL, logger: Logger) async throws -> ControllerSession {
        let controller = try ZRCController.bench(crypto: try SodiumCrypto(), knownHosts: directory.appendingPathComponent("known-hosts.json"),
                                                 logger: logger)
        _ = try await controller.pair(inviteText: try await host.invite(), name: "bench")
        return try await controller.connect(to: "bench")
    }
}
