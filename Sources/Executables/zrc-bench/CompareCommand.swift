import ArgumentParser
import Foundation

/// ZRC beside TigerVNC and x11vnc, in one run, on every link profile of the laboratory and the
/// same workloads, each VNC server measured through the benchmark's RFB client (which decodes
/// every update into a framebuffer, as a viewer does).
struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Measure ZRC beside TigerVNC (Xvnc, x0vncserver) and x11vnc over the link profiles (needs root).",
        discussion: """
            Per profile and system: click to decoded frame on a still screen and during full-screen motion, \
            that motion's updates/s and bytes/s, the time until the picture is exact once the motion stops, \
            and bytes/s for typing-sized changes, typing into a real xterm and a full-screen xterm scrolling \
            50 lines/s. ZRC and x0vncserver/x11vnc share one 1920x1080 Xvfb; Xvnc is an X server of its own \
            at the same size. The RFB client speaks RFB 3.8 (security None, BGRX) with the classic request \
            loop, asking for ZRLE or Tight (JPEG level 6 ≈ q80, zlib level 2) plus CopyRect and Raw.
            """)

    @OptionGroup var options: LabOptions

    @Option(parsing: .upToNextOption, help: "Systems: zrc, xvnc-zrle, xvnc-tight, x0vnc-tight, x11vnc-tight.")
    var systems: [ComparedSystem] = ComparedSystem.defaults

    @Option(parsing: .upToNextOption, help: "Workloads measured for bytes after the clicks.")
    var workloads: [Workload] = [.typing, .xtermTyping, .xtermScrolling]

    func run() async throws {
        let bench = try LabBench(options: options)
        defer { bench.stop() }
        print("zrc-bench compare: 1920x1080, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(options.trials) clicks \(options.pause) ms apart "
            + "per phase, \(options.seconds) s per \(options.motion.rawValue) motion and workload; systems: \(systems.map(\.rawValue).joined(separator: ", "))")
        for profile in options.chosen {
            var rows: [LabRun.Figures] = []
            var failures: [String] = []
            for system in systems {
                let lab = try await bench.lab(profile)
                defer { lab.down() }
                // One system failing (a server that does not start) leaves the others' figures standing.
                do {
                    rows.append(try await bench.measure(system, in: lab, workloads: workloads))
                    FileHandle.standardError.write(Data("compare: \(profile.name) \(system.rawValue) measured\n".utf8))
                } catch {
                    failures.append("\(system.title): \(error)")
                }
            }
            ComparisonTable(profile: profile, rows: rows, workloads: workloads).print()
            for failure in failures { print("  not measured: \(failure)") }
        }
    }
}

/// One profile's figures, ZRC first, each VNC figure followed by its ratio to ZRC's.
struct ComparisonTable {
    let profile: NetworkLab.Profile
    let rows: [LabRun.Figures]
    let workloads: [Workload]

    func print() {
        let reference = rows.first { $0.system == .zrc }
        Swift.print("")
        Swift.print("\(profile.description)   (× = this system's figure ÷ ZRC's)")
        var columns = ["system", "click still p50/p95 ms", "click in motion p50/p95 ms", "motion updates/s", "motion kB/s", "exact after ms"]
        // Updates/s beside bytes/s: a system that sends fewer, larger updates (a pull loop batching
        // keystrokes) and one that sends every keystroke at once differ in both.
        columns += workloads.map { "\($0.rawValue) updates/s, kB/s" }
        Swift.print(columns.joined(separator: " | "))
        for row in rows {
            let reference = row.system == .zrc ? nil : reference
            var cells = [row.system.title]
            cells.append(clicks(row.idle, reference?.idle))
            cells.append(clicks(row.busy, reference?.busy))
            cells.append(value(row.motion.first, reference?.motion.first, format: "%.1f"))
            cells.append(value(row.motion.dropFirst().first.map { $0 / 1000 }, reference?.motion.dropFirst().first.map { $0 / 1000 }, format: "%.0f"))
            cells.append(row.settleMillis.map { value($0, reference?.settleMillis, format: "%.0f") } ?? "> 10 s")
            for (index, _) in workloads.enumerated() {
                let bytes = row.workloads[index].1.dropFirst().first.map { $0 / 1000 }
                let zrc = reference?.workloads[index].1.dropFirst().first.map { $0 / 1000 }
                let updates = row.workloads[index].1.first.map { String(format: "%.1f", $0) } ?? "—"
                cells.append("\(updates), " + value(bytes, zrc, format: "%.1f"))
            }
            Swift.print(cells.joined(separator: " | "))
        }
    }

    private func clicks(_ figures: [Double], _ zrc: [Double]?) -> String {
        guard figures.count >= 4 else { return "—" }
        if figures[0] == 0, figures[3] > 0 { return "none within 2 s" }
        var text = String(format: "%.1f / %.1f", figures[0], figures[1])
        if figures[3] > 0 { text += String(format: " (%d lost)", Int(figures[3])) }
        if let zrc, zrc.count >= 2, zrc[0] > 0 { text += String(format: " ×%.1f", figures[0] / zrc[0]) }
        return text
    }

    private func value(_ figure: Double?, _ zrc: Double?, format: String) -> String {
        guard let figure else { return "—" }
        var text = String(format: format, figure)
        if let zrc, zrc > 0 { text += String(format: " ×%.1f", figure / zrc) }
        return text
    }
}
