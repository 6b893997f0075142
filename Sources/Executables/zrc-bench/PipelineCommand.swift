import ArgumentParser
import Foundation
import Logging
import Synchronization
import ZRCCommandSupport
import ZRCFrames
import ZRCHostKit
import ZRCHostX11
import ZRCNetworking
import ZRCProtocol
import ZRCSodium
import ZRCStorage

/// The real host pipeline under three workloads, measured per update.
struct PipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Run the real host against a controller process while a test client draws; print per-stage figures.",
        discussion: """
            Starts Xvfb at --size (unless --display is given), an in-process zrc host sharing it \
            (MIT-SHM, XDamage, libjpeg-turbo, Noise over loopback TCP), a controller in a child \
            process that decodes and acknowledges every update, and, per workload, a test client in \
            another child process that draws it. After a warm-up, every update's capture, change \
            detection, encode and send time is recorded, with its size on the wire, and the host \
            process's CPU time is read from getrusage.
            """)

    @OptionGroup var screen: BenchScreenOptions
    @OptionGroup var view: TerminalViewOptions

    @Option(help: "Seconds measured per workload (after the warm-up).")
    var seconds = 5

    @Option(help: "Seconds of warm-up per workload (the first full frame and its refinement are not measured).")
    var warmUp = 2

    @Option(parsing: .upToNextOption, help: "Workloads to run: static, typing, motion.")
    var workloads: [Workload] = Workload.allCases

    @Option(help: "Viewers: with 2 or more, each workload is measured with one viewer, then again with this many watching (host CPU and bytes per viewer side by side).")
    var viewers = 1

    @Flag(help: "Viewers decode no JPEG (a view-only audience that leaves the cores to the host).")
    var skipDecode = false

    @Flag(help: "Every session encodes its own JPEGs (to measure what sharing them saves).")
    var noSharedEncodings = false

    @Option(help: "Updates the test client draws per second (default: the workload's own pace, 120 for motion).")
    var paintRate: Int?

    func validate() throws {
        guard seconds >= 1, seconds <= 600 else { throw ValidationError("--seconds must be between 1 and 600") }
        guard warmUp >= 0, warmUp <= 60 else { throw ValidationError("--warm-up must be between 0 and 60") }
        guard (1...32).contains(viewers) else { throw ValidationError("--viewers must be between 1 and 32") }
        if let paintRate, !(1...240).contains(paintRate) { throw ValidationError("--paint-rate must be between 1 and 240") }
    }

    func run() async throws {
        try await screen.run { displayName, directory, logger in
            let log = MeasurementLog()
            let source = try X11ScreenSource(displayName: displayName, monitor: nil, logger: logger)
            _ = try FrameCodec()
            var sharing = ScreenSharing(source: source, input: nil, makeEncoder: { try FrameCodec() },
                                        onUpdate: { log.add($0) })
            sharing.sharesEncodings = !noSharedEncodings
            let host = try BenchHost(directory: directory, sharing: sharing, logger: logger)
            try await host.start()
            do {
                try await measure(host: host, source: source, log: log, displayName: displayName, directory: directory)
            } catch {
                await host.stop()
                throw error
            }
            // Before the display goes away, so the host does not report a lost X connection.
            await host.stop()
        }
    }

    private func measure(host: BenchHost, source: X11ScreenSource, log: MeasurementLog, displayName: String,
                         directory: URL) async throws {

        let (width, height) = await source.size
        let request = try view.pictureRequest(screenWidth: width, screenHeight: height)
        let sink = try BenchChild("the controller (sink)", executable: BenchChild.selfExecutable,
                                  arguments: ["sink", "--directory", directory.path] + (skipDecode ? ["--skip-decode"] : [])
                                      + (request.map { ["--picture", "\($0.maxWidth)x\($0.maxHeight)"] } ?? []))
        defer { sink.stop() }
        sink.send(line: try await host.invite())
        try await log.waitForFirstUpdate(timeout: .seconds(20))

        print("zrc-bench pipeline: display \(displayName) \(width)x\(height), capture via \(await source.captureMethod), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(seconds) s per workload after \(warmUp) s warm-up")
        print("controller: \(view.describe(request))")
        if viewers > 1 { print("viewers: 1, then \(viewers)" + (skipDecode ? " (decoding no JPEG)" : "")) }
        for workload in workloads {
            let painter = try BenchChild("the test client", executable: BenchChild.selfExecutable,
                                         arguments: ["paint", "--display", displayName, "--workload", workload.rawValue]
                                             + (paintRate.map { ["--rate", "\($0)"] } ?? []))
            defer { painter.stop() }
            try await painter.waitForLine("ready", timeout: .seconds(20))
            let one = try await measure(workload, log: log)
            one.print()
            if viewers > 1 {
                let others = try await host.startViewers(viewers - 1, directory: directory, skipDecode: skipDecode)
                defer { for other in others { other.stop() } }
                let encodings = host.server.configuration.sharing?.encodings
                let updates = host.server.configuration.sharing?.updates
                let sharedBefore = encodings?.counts ?? (hits: 0, misses: 0)
                let updatesBefore = updates?.counts ?? (used: 0, made: 0)
                let restartsBefore = SharedLosslessStream.restarts
                let many = try await measure(workload, log: log)
                let shared = encodings?.counts ?? (hits: 0, misses: 0)
                let sharedUpdates = updates?.counts ?? (used: 0, made: 0)
                Swift.print("\nthe same with \(viewers) viewers (updates counted over all of them):")
                many.print()
                let ratio = (many.cpu / many.wall) / max(1e-9, one.cpu / one.wall)
                Swift.print(String(format: "  host CPU with %d viewers: %.2f× one viewer's; shared JPEG encodings used %d times, made %d times",
                                   viewers, ratio, shared.hits - sharedBefore.hits, shared.misses - sharedBefore.misses))
                Swift.print(String(format: "  whole updates made once and sent by other sessions too: %d made, %d taken",
                                   sharedUpdates.made - updatesBefore.made, sharedUpdates.used - updatesBefore.used))
                Swift.print("  lossless stream restarts (updates whose lossless rects started a stream shared by the sessions in step): "
                                + "\(SharedLosslessStream.restarts - restartsBefore)")
                WorkloadReport.printBytesPerViewer(one: one, many: many, viewers: viewers)
            }
        }
    }

    /// One workload's updates and host CPU over `seconds`, after the warm-up.
    private func measure(_ workload: Workload, log: MeasurementLog) async throws -> WorkloadReport {
        try await Task.sleep(for: .seconds(warmUp))
        _ = log.take()
        let (cpuBefore, wallBefore) = (ProcessCPU.now(), ContinuousClock.now)
        try await Task.sleep(for: .seconds(seconds))
        let updates = log.take()
        let (cpu, wall) = (ProcessCPU.now() - cpuBefore, ContinuousClock.now - wallBefore)
        return WorkloadReport(workload: workload, updates: updates, cpu: cpu, wall: wall)
    }
}

/// Every update's measurement, collected from the host's streamer.
final class MeasurementLog: Sendable {
    private let updates = Mutex<[UpdateMeasurement]>([])

    func add(_ measurement: UpdateMeasurement) { updates.withLock { $0.append(measurement) } }

    func take() -> [UpdateMeasurement] { updates.withLock { taken in defer { taken = [] }; return taken } }

    func waitForFirstUpdate(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while updates.withLock({ $0.isEmpty }) {
            guard ContinuousClock.now < deadline else {
                throw ValidationError("the controller received no frame within \(timeout): is the sink running?")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
