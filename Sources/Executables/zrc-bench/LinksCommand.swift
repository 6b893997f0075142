import ArgumentParser
import Foundation
import ZRCX11

/// ZRC over the network laboratory's link profiles: the host (and its X screen's probe) on one
/// side of a shaped, delayed veth pair, the controller on the other, each in a process of its own.
struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Measure ZRC over constrained, delayed links (network namespaces; needs root).",
        discussion: """
            Per profile (lan 1 Gbit/s 1 ms, wifi 50 Mbit/s 10 ms, dsl 10 Mbit/s 40 ms, lte 5 Mbit/s 80 ms, \
            far 20 Mbit/s 200 ms round trip): builds the laboratory (see `lab-check`), runs the host in its \
            host namespace sharing a 1920x1080 Xvfb and the controller in the other, and measures: click to \
            decoded frame on a still screen, the same while the whole screen around the clicked square \
            scrolls (about 60 frames/s), that motion's updates/s, bytes/s and the host's worst queueing \
            and bytes in flight, the median JPEG quality the host chose for its updates and the median \
            PSNR of the controller's picture against the host's screen read at the same moment (every \
            0.5 s, so it counts the picture's lag as well as its coding loss), and, once the motion \
            stops, the time until the controller's picture is pixel-exact.
            """)

    @OptionGroup var options: LabOptions

    typealias Figures = LabRun.Figures

    func run() async throws {
        let bench = try LabBench(options: options)
        defer { bench.stop() }
        print("zrc-bench links: display \(bench.display) 1920x1080, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(options.trials) clicks \(options.pause) ms apart per phase, \(options.seconds) s of \(options.motion.rawValue) motion watched")
        var all: [Figures] = []
        for profile in options.chosen {
            let lab = try await bench.lab(profile)
            defer { lab.down() }
            let figures = try await bench.measure(.zrc, in: lab, workloads: [])
            all.append(figures)
            Self.report(figures, profile: profile)
        }
        summary(all)
    }

    private static func report(_ figures: Figures, profile: NetworkLab.Profile) {
        let rtt = profile.roundTripMillis
        Swift.print("")
        Swift.print("\(profile.description)")
        func clicks(_ values: [Double]) -> String {
            values.count >= 4 ? String(format: "p50 %7.1f  p95 %7.1f  p99 %7.1f ms  (%d lost)", values[0], values[1], values[2], Int(values[3])) : "—"
        }
        Swift.print("  click → frame, still screen        \(clicks(figures.idle))")
        Swift.print("  click → frame, during motion       \(clicks(figures.busy))   (target at dsl: p95 ≤ RTT + 25 = \(Int(rtt + 25)) ms)")
        if figures.motion.count >= 5 {
            Swift.print(String(format: "  motion: %.1f updates/s, %.0f kB/s; host queueing at most %.1f ms, in flight at most %.0f kB, path rate %.1f Mbit/s",
                               figures.motion[0], figures.motion[1] / 1000, figures.motion[2], figures.motion[3] / 1000, figures.motion[4] * 8 / 1e6))
        }
        if figures.motion.count >= 7 {
            Swift.print("  what the user sees during motion   median JPEG quality \(quality(figures.motion[5])), "
                + "PSNR \(psnr(figures.motion[6])) (picture shown against the host's screen at the same moment, every 0.5 s)")
        }
        Swift.print("  motion stops → picture exact       " + (figures.settleMillis.map { String(format: "%.1f ms", $0) } ?? "not within 10 s")
            + "   (target: ≤ RTT + 200 = \(Int(rtt + 200)) ms)")
    }

    /// A median quality (-1: no update held JPEG) and PSNR (-1: not measured; 99: exact).
    private static func quality(_ value: Double) -> String { value < 0 ? "lossless" : String(format: "q%.0f", value) }
    private static func psnr(_ value: Double) -> String { value < 0 ? "—" : value >= 99 ? "exact" : String(format: "%.1f dB", value) }

    private func summary(_ all: [Figures]) {
        Swift.print("")
        Swift.print("profile   RTT ms  click p50/p95 still   click p50/p95 motion   updates/s   kB/s   queue ms   exact after ms   quality   PSNR")
        for (figures, profile) in zip(all, options.chosen) {
            let idle = figures.idle.count >= 2 ? String(format: "%6.1f /%6.1f", figures.idle[0], figures.idle[1]) : "     —       "
            let busy = figures.busy.count >= 2 ? String(format: "%6.1f /%6.1f", figures.busy[0], figures.busy[1]) : "     —       "
            let watch = figures.motion.count >= 3 ? String(format: "%9.1f  %6.0f  %8.1f", figures.motion[0], figures.motion[1] / 1000, figures.motion[2])
                : "        —       —         —"
            let settle = figures.settleMillis.map { String(format: "%8.1f", $0) } ?? "  > 10 s"
            let seen = figures.motion.count >= 7
                ? Self.quality(figures.motion[5]).padding(toLength: 8, withPad: " ", startingAt: 0) + "  " + Self.psnr(figures.motion[6]) : "—"
            Swift.print(String(format: "%-8@ %6.0f  ", profile.name, profile.roundTripMillis) + "\(idle)       \(busy)      \(watch)   \(settle)         \(seen)")
        }
    }
}
