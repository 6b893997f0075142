import ArgumentParser
import Foundation
import ZRCX11

/// One system measured over one link of the laboratory: its server in the host namespace, the
/// click probe (then each workload) drawing on its screen, and its controller (`link-controller`)
/// in the controller namespace. The same steps for ZRC and every VNC server.
struct LabRun {
    let system: ComparedSystem
    let lab: NetworkLab
    /// The benchmark's Xvfb (Xvnc brings a screen of its own).
    let sharedDisplay: String
    let trials: Int
    let pause: Int
    let seconds: Int
    let motion: MotionKind
    /// Measured after the probe, each for `seconds` after a 2 s warm-up.
    let workloads: [Workload]

    struct Figures {
        var system: ComparedSystem
        /// Click to frame on a still screen, then during motion: p50, p95, p99 (ms) and clicks lost.
        var idle: [Double]
        var busy: [Double]
        /// The motion: updates/s, bytes/s, the host's worst queue (ms) and bytes in flight, path
        /// rate; the median JPEG quality of its updates and the median PSNR (dB) of the picture
        /// shown against the host's screen at the same moment (-1: not known).
        var motion: [Double]
        /// Motion stops → picture exact (ms); nil when it never became exact within the timeout.
        var settleMillis: Double?
        /// Per workload: updates/s and bytes/s.
        var workloads: [(Workload, [Double])]
    }

    func measure() async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-bench-lab-\(getpid())-\(lab.profile.name)-\(system)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("host"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("controller"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let (display, server) = try await system.startServer(in: lab, shared: sharedDisplay, directory: directory.appendingPathComponent("host"))
        defer {
            server.stop()
            SysVSharedMemory.removeOrphans(createdBy: server.process.processIdentifier)
        }
        let probe = try BenchChild("the probe", executable: BenchChild.selfExecutable, arguments: ["probe", "--display", display, "--motion", "--motion-kind", motion.rawValue])
        defer { probe.stop() }
        try await probe.waitForLine("ready", timeout: .seconds(20))

        let controller: BenchChild
        if let encodings = system.encodings {
            controller = try BenchChild("the VNC controller", executable: "/usr/sbin/ip", arguments: lab.inController([
                BenchChild.selfExecutable, "link-controller", "--vnc", "\(NetworkLab.hostAddress):\(ComparedSystem.vncPort)",
                "--encoding", encodings.rawValue, "--display", display,
            ]))
        } else {
            server.send(line: "invite")
            let invite = try await server.nextLine(timeout: .seconds(20))
            controller = try BenchChild("the controller", executable: "/usr/sbin/ip", arguments: lab.inController([
                BenchChild.selfExecutable, "link-controller", "--directory", directory.appendingPathComponent("controller").path,
                "--display", display,
            ]))
            controller.send(line: invite)
        }
        defer { controller.stop() }
        let timeout = Duration.seconds(120)
        guard try await controller.nextLine(timeout: timeout).hasPrefix("connected") else {
            throw ValidationError("\(system.title): the controller did not connect")
        }
        func ask(_ command: String) async throws -> [Double] {
            controller.send(line: command)
            let reply = try await controller.nextLine(timeout: timeout + .seconds(Double(trials * pause) / 1000))
            return reply.split(separator: " ").dropFirst().compactMap { Double($0) }
        }

        let idle = try await ask("clicks \(trials) \(pause)")
        probe.send(line: "motion")
        try await probe.waitForLine("motion", timeout: .seconds(10))
        let busy = try await ask("clicks \(trials) \(pause)")
        let motion = try await ask("watch \(seconds)")
        probe.send(line: "still")
        try await probe.waitForLine("still", timeout: .seconds(10))
        let settle = try await ask("settle \(try Self.screenHash(display)) 10000")
        probe.stop()

        var measured: [(Workload, [Double])] = []
        for workload in workloads {
            let painter = try BenchChild("the test client", executable: BenchChild.selfExecutable,
                                         arguments: ["paint", "--display", display, "--workload", workload.rawValue, "--wait-for-go"])
            defer { painter.stop() }
            // The workload starts from a settled picture: what is still arriving of the last phase
            // (a slow link may be seconds behind) must not count as the workload's bytes.
            try await painter.waitForLine("still", timeout: .seconds(30))
            _ = try await ask("settle \(try Self.screenHash(display)) \(Self.workloadSettleMillis)")
            painter.send(line: "go")
            try await painter.waitForLine("ready", timeout: .seconds(30))
            try await Task.sleep(for: .seconds(2))
            measured.append((workload, try await ask("watch \(seconds)")))
        }
        return Figures(system: system, idle: idle, busy: busy, motion: motion, settleMillis: settle.first, workloads: measured)
    }

    /// How long a workload waits for the picture to settle before it starts (a lossy encoding never
    /// becomes exact: it waits this long).
    static let workloadSettleMillis = 15_000

    private static func screenHash(_ display: String) throws -> UInt64 {
        let still = try ScreenCapturer(connection: try X11Connection(displayName: display)).captureScreen()
        return PixelHash.of(bgrx: still.pixels, width: still.width, height: still.height, bytesPerRow: still.bytesPerRow)
    }
}
