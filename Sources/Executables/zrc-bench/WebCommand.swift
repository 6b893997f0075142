import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCHostKit
import ZRCHostX11
import ZRCSodium
import ZRCWebTesting

/// The browser viewer against the terminal path, in one run: click → painted in the page (measured
/// in the page) beside click → decoded in a controller, full-screen motion painted vs received,
/// and the page's heap and the viewer's memory over a long motion.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Measure the browser viewer (zrc-ctl view --web's core) in headless Chromium beside the terminal path.",
        discussion: """
            Starts Xvfb at --size, the probe client, an in-process host, and a controller for the terminal \
            path's click → decoded frame. Then a viewer process (zrc-bench web-viewer: the WebViewer and its \
            loopback server, acknowledging frames as the page draws them) and Debian's headless Chromium under \
            Playwright (ZRC_PLAYWRIGHT_PYTHON, ZRC_REPOSITORY; Tools/bench.sh sets them). In the page: each \
            click's pointerdown timestamp to the first animation frame whose canvas shows the probe's new \
            colour, and message received → drawn. During --motion-seconds of full-screen motion: paints vs \
            updates the viewer received, and the viewer's and the browser's CPU. With --soak-seconds, the \
            page's JS heap and the viewer's resident memory before and after that much motion.
            """)

    @OptionGroup var screen: BenchScreenOptions

    @Option(help: "Measured clicks on each path (after 10 unmeasured ones).")
    var trials = 100

    @Option(help: "Pause between clicks in milliseconds.")
    var pause = 200

    @Option(help: "Seconds of full-screen motion for the paint rate.")
    var motionSeconds = 20

    @Option(help: "The motion: scroll or video.")
    var motion: MotionKind = .video

    @Option(help: "Seconds of motion for the memory soak (0: none).")
    var soakSeconds = 0

    func validate() throws {
        guard (1...10_000).contains(trials) else { throw ValidationError("--trials must be between 1 and 10000") }
        guard (1...3600).contains(motionSeconds) else { throw ValidationError("--motion-seconds must be between 1 and 3600") }
        guard (0...7200).contains(soakSeconds) else { throw ValidationError("--soak-seconds must be between 0 and 7200") }
    }

    func run() async throws {
        try await screen.run { displayName, directory, logger in
            let probe = try BenchChild("the probe client", executable: BenchChild.selfExecutable,
                                       arguments: ["probe", "--display", displayName, "--motion", "--motion-kind", motion.rawValue])
            defer { probe.stop() }
            try await probe.waitForLine("ready", timeout: .seconds(20))
            let source = try X11ScreenSource(displayName: displayName, monitor: nil, logger: logger)
            let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
            let host = try BenchHost(directory: directory, sharing: sharing, logger: logger)
            try await host.start()
            do {
                let shared = await source.size
                print("zrc-bench web: display \(displayName) \(shared.width)x\(shared.height), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
                    + "\(trials) clicks \(pause) ms apart on each path, \(motion.rawValue) motion")
                // The terminal path: click → decoded in a controller.
                let controller = try ZRCController.bench(crypto: try SodiumCrypto(), knownHosts: directory.appendingPathComponent("known-hosts.json"),
                                                         logger: logger)
                _ = try await controller.pair(inviteText: try await host.invite(), name: "bench")
                let session = try await controller.connect(to: "bench")
                let terminal = try await LatencyTrials(session: session, width: shared.width, height: shared.height, pause: pause)
                    .run(trials: trials, warmUp: 10)
                await session.close()
                var decoded = Samples()
                for trial in terminal.trials { decoded.add(micros: trial.decoded &- trial.clicked) }

                let page = try await WebBenchPage.open(host: host, directory: directory, width: shared.width, height: shared.height)
                do {
                    try await measure(page, probe: probe, terminal: decoded, width: shared.width, height: shared.height)
                } catch {
                    await page.close()
                    throw error
                }
                await page.close()
            } catch {
                await host.stop()
                throw error
            }
            await host.stop()
        }
    }

    private func measure(_ page: WebBenchPage, probe: BenchChild, terminal: Samples, width: Int, height: Int) async throws {
        let clicks = try await page.clicks(trials + 10, pause: pause, probeX: width / 2, probeY: height / 2)
        var painted = Samples(), drawn = Samples()
        for click in clicks.dropFirst(10) {
            painted.add(value: click.painted)
            drawn.add(value: click.drawn)
        }
        print("")
        print(String(format: "terminal path, click → decoded frame:        p50 %7.2f ms   p95 %7.2f ms", terminal.percentile(0.5), terminal.percentile(0.95)))
        print(String(format: "browser, click → painted (in the page):      p50 %7.2f ms   p95 %7.2f ms   (n=%d)",
                     painted.percentile(0.5), painted.percentile(0.95), clicks.count - 10))
        print(String(format: "  beside the terminal path:                  p50 %+7.2f ms   p95 %+7.2f ms   (bars: +12 ms, +20 ms)",
                     painted.percentile(0.5) - terminal.percentile(0.5), painted.percentile(0.95) - terminal.percentile(0.95)))
        print(String(format: "  message received → drawn (no frame wait):  p50 %7.2f ms   p95 %7.2f ms", drawn.percentile(0.5), drawn.percentile(0.95)))

        probe.send(line: "motion")
        try await probe.waitForLine("motion", timeout: .seconds(10))
        let watch = try await page.watch(seconds: motionSeconds)
        print("")
        print(String(format: "full-screen motion, %d s: %.1f updates/s received by the viewer, %.1f paints/s in the page = %.1f %% (bar: 90 %%)",
                     motionSeconds, watch.receivedPerSecond, watch.paintsPerSecond, 100 * watch.paintsPerSecond / max(watch.receivedPerSecond, 0.001)))
        print(String(format: "  CPU: viewer %.0f %%, browser %.0f %% (of one core); out-of-order paints: %d",
                     watch.viewerCPU, watch.browserCPU, watch.outOfOrder))
        if soakSeconds > 0 {
            let soak = try await page.soak(seconds: soakSeconds)
            print("")
            print(String(format: "memory over %d s of motion: page JS heap %.1f → %.1f MB (%+.1f), viewer resident %.1f → %.1f MB (%+.1f) (bar: < 10 MB each)",
                         soakSeconds, soak.heapBefore, soak.heapAfter, soak.heapAfter - soak.heapBefore,
                         soak.rssBefore, soak.rssAfter, soak.rssAfter - soak.rssBefore))
        }
        probe.send(line: "still")
        try await probe.waitForLine("still", timeout: .seconds(10))
    }
}
