import ArgumentParser
import Foundation

/// A file transfer over the network laboratory's links while the screen scrolls: the host (sharing
/// a directory) in the host namespace, the controller in the other. Measures clicks during the
/// scrolling alone, then a transfer of `--megabytes` started beside the scrolling with clicks
/// during it: the transfer's share of the link, and what it costs the click's answer (target at
/// dsl, for an upload: ≥ 90 % of the link, and a click answered within RTT + 25 ms at p95). A
/// download shares its direction with the frames, which go first: it gets what they leave.
struct FilesLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files-lab",
        abstract: "Measure a file transfer over the laboratory's links while the screen scrolls (network namespaces; needs root).")

    @OptionGroup var options: LabOptions

    @Option(help: "The transfer's size in MB (10^6 bytes).")
    var megabytes = 50

    enum Direction: String, ExpressibleByArgument, CaseIterable { case upload, download, both }
    /// One transfer measured.
    enum Transfer: String { case upload, download }

    @Option(help: "Which transfers to measure: upload (the issue's target), download, or both.")
    var direction = Direction.upload

    func validate() throws {
        guard (1...2000).contains(megabytes) else { throw ValidationError("--megabytes must be 1…2000") }
    }

    func run() async throws {
        var chosen = options
        if options.profiles == NetworkLab.Profile.all.map(\.name) { chosen.profiles = ["dsl"] }
        let bench = try LabBench(options: chosen)
        defer { bench.stop() }
        print("zrc-bench files-lab: display \(bench.display) 1920x1080, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "a \(megabytes) MB \(direction == .both ? "upload, then download," : direction.rawValue) while the screen shows \(options.motion.rawValue) motion, \(options.trials) clicks \(options.pause) ms apart")
        for profile in chosen.chosen {
            let lab = try await bench.lab(profile)
            defer { lab.down() }
            for transfer in [Transfer.upload, .download] where direction == .both || direction.rawValue == transfer.rawValue {
                try await measure(transfer, in: lab, display: bench.display)
            }
        }
    }

    private func measure(_ transfer: Transfer, in lab: NetworkLab, display: String) async throws {
        let directory = URL(fileURLWithPath: "/var/tmp").appendingPathComponent("zrc-bench-files-lab-\(getpid())-\(lab.profile.name)")
        for folder in ["host", "controller", "root", "down"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(transfer == .upload ? "controller/upload.bin" : "root/download.bin")
        let bytes = megabytes * 1_000_000
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }).write(to: file)

        let host = try BenchChild("the ZRC host", executable: "/usr/sbin/ip", arguments: lab.inHost([
            BenchChild.selfExecutable, "flood-host", "--display", display, "--directory", directory.appendingPathComponent("host").path,
            "--listen", NetworkLab.hostAddress, "--file-root", directory.appendingPathComponent("root").path,
        ]))
        defer { host.stop() }
        guard try await host.nextLine(timeout: .seconds(20)).hasPrefix("port ") else { throw BenchError("the ZRC host did not start") }
        let probe = try BenchChild("the probe", executable: BenchChild.selfExecutable,
                                   arguments: ["probe", "--display", display, "--motion", "--motion-kind", options.motion.rawValue])
        defer { probe.stop() }
        try await probe.waitForLine("ready", timeout: .seconds(20))
        host.send(line: "invite")
        let invite = try await host.nextLine(timeout: .seconds(20))
        let controller = try BenchChild("the controller", executable: "/usr/sbin/ip", arguments: lab.inController([
            BenchChild.selfExecutable, "link-controller", "--directory", directory.appendingPathComponent("controller").path, "--display", display,
        ]))
        defer { controller.stop() }
        controller.send(line: invite)
        guard try await controller.nextLine(timeout: .seconds(120)).hasPrefix("connected") else { throw BenchError("the controller did not connect") }
        func ask(_ command: String, timeout: Duration = .seconds(600)) async throws -> String {
            controller.send(line: command)
            return try await controller.nextLine(timeout: timeout)
        }
        func figures(_ line: String) -> [Double] { line.split(separator: " ").dropFirst().compactMap { Double($0) } }

        probe.send(line: "motion")
        try await probe.waitForLine("motion", timeout: .seconds(10))
        let alone = figures(try await ask("clicks \(options.trials) \(options.pause)"))
        let name = transfer.rawValue
        let start = transfer == .upload ? "upload-start \(file.path) upload.bin"
            : "download-start download.bin \(directory.appendingPathComponent("down").path) download.bin \(bytes)"
        guard try await ask(start) == "\(name) started" else { throw BenchError("the \(name) did not start") }
        let during = figures(try await ask("clicks \(options.trials) \(options.pause)"))
        let done = try await ask("\(name)-wait", timeout: .seconds(3600))
        probe.send(line: "still")
        let result = figures(done)
        guard done.hasPrefix("\(name) "), result.count == 2 else { throw BenchError("the \(name) failed: \(done)") }
        if transfer == .download {
            guard try Data(contentsOf: directory.appendingPathComponent("down/download.bin")) == Data(contentsOf: file) else {
                throw BenchError("the downloaded file differs from the host's")
            }
        }

        let profile = lab.profile
        let goodput = Double(bytes) * 8 / result[0]
        let wire = result[1] * 8 / result[0]
        func clicks(_ values: [Double]) -> String {
            values.count >= 4 ? String(format: "p50 %6.1f  p95 %6.1f  p99 %6.1f ms  (%d lost)", values[0], values[1], values[2], Int(values[3])) : "—"
        }
        print("")
        print(profile.description)
        print("  click → frame, scrolling                 \(clicks(alone))")
        let padded = name.padding(toLength: 8, withPad: " ", startingAt: 0)
        print("  click → frame, scrolling + \(padded)      \(clicks(during))   (target: p95 ≤ RTT + 25 = \(Int(profile.roundTripMillis + 25)) ms)")
        print(String(format: "  %@ of %d MB: %.1f s, %.2f Mbit/s of file data = %.0f%% of the link (%@); %.2f Mbit/s on the wire%@",
                     name, megabytes, result[0], goodput / 1e6, goodput * 100 / profile.bitsPerSecond,
                     transfer == .upload ? "target ≥ 90%" : "what the frames leave", wire / 1e6,
                     transfer == .upload ? "" : " (frames included), bit-identical"))
    }
}
