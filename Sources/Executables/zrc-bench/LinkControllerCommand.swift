import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCNetworking
import ZRCX11
import ZRCFrames
import ZRCFiles
import ZRCProtocol

/// The laboratory's controller, run in the controller's namespace: ZRC (pairs with the invite read
/// from stdin) or, with `--vnc`, the benchmark's RFB client. Once it shows a first picture it says
/// `connected WxH`, then runs the measurements asked for on stdin, one result line each (see
/// `LinkMeasurements`):
///
/// - `clicks N PAUSE_MS` → `clicks P50 P95 P99 LOST`
/// - `watch SECONDS` → `watch UPDATES_PER_S BYTES_PER_S QUEUE_MS_MAX IN_FLIGHT_MAX RATE QUALITY PSNR`
/// - `settle HASH TIMEOUT_MS` → `settle MS` or `settle timeout`
/// - ZRC only: `upload-start LOCAL REMOTE` → `upload started` (the upload runs beside what
///   follows), `upload-wait` → `upload SECONDS WIRE_BYTES_SENT` or `upload failed TEXT`;
///   `download-start REMOTE LOCAL_DIRECTORY NAME SIZE` → `download started`, `download-wait` →
///   `download SECONDS WIRE_BYTES_RECEIVED` or `download failed TEXT`
struct LinkControllerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link-controller", abstract: "The network laboratory's controller (used by `links` and `compare`).",
        shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file (ZRC).")
    var directory: String?

    @Option(help: "Measure a VNC server at ADDRESS:PORT instead of ZRC.")
    var vnc: String?

    @Option(help: "The host's X display, read while motion is watched to compare the picture shown here with it (PSNR).")
    var display: String?

    @Option(help: "The VNC encodings to ask for: zrle or tight.")
    var encoding: String = RFBViewer.Encodings.tight.rawValue

    func validate() throws {
        guard RFBViewer.Encodings(rawValue: encoding) != nil else { throw ValidationError("--encoding must be zrle or tight") }
        guard vnc != nil || directory != nil else { throw ValidationError("give --directory (ZRC) or --vnc (a VNC server)") }
    }

    func run() async throws {
        var input = StandardInputLines.stream().makeAsyncIterator()
        let viewer: any MeasuredViewer
        var closeSession: (@Sendable () async -> Void)?
        var zrcSession: ControllerSession?
        /// The upload or download running beside the measurements.
        var transfer: Task<String, Never>?
        if let vnc {
            let parts = vnc.split(separator: ":")
            guard parts.count == 2, let port = Int(parts[1]) else { throw ValidationError("--vnc takes ADDRESS:PORT") }
            // The server may still be starting: retry for up to 20 s.
            var connected: RFBViewer?
            for attempt in 0..<200 where connected == nil {
                do {
                    connected = try RFBViewer(address: String(parts[0]), port: port, encodings: RFBViewer.Encodings(rawValue: encoding)!)
                } catch where attempt < 199 {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            guard let client = connected else { throw ValidationError("no VNC server at \(vnc)") }
            viewer = VNCMeasuredViewer(viewer: client)
            closeSession = { client.close() }
        } else {
            guard let invite = await input.next() else { throw ValidationError("the link controller reads an invite on stdin") }
            let session = try await ControllerSession.bench(invite: invite, directory: directory!, label: "zrc-bench.link-controller")
            viewer = ZRCMeasuredViewer(session: session)
            zrcSession = session
            closeSession = { await session.close() }
        }
        var size: (width: Int, height: Int)?
        for _ in 0..<60_000 where size == nil {
            size = await viewer.size()
            if let failure = await viewer.failure() { throw BenchError(failure) }
            if size == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        guard let size else { throw ValidationError("no picture within 60 s") }
        say("connected \(size.width)x\(size.height)")
        let measurements = LinkMeasurements(viewer: viewer, width: size.width, height: size.height)
        // The host's screen as it is now (its X server's socket is seen from every namespace).
        let reference: (() throws -> PixelBuffer)? = try display.map { name in
            let capturer = try ScreenCapturer(connection: try X11Connection(displayName: name))
            return {
                let image = try capturer.captureScreen()
                return PixelBuffer(width: image.width, height: image.height, bytesPerRow: image.bytesPerRow, bytes: image.pixels)
            }
        }
        while let command = await input.next() {
            let words = command.split(separator: " ").map(String.init)
            switch words.first {
            case "clicks":
                guard words.count == 3, let count = Int(words[1]), let pause = Int(words[2]) else { throw ValidationError("bad command \(command)") }
                say(try await measurements.clicks(count: count, pause: pause))
            case "watch":
                guard words.count == 2, let seconds = Double(words[1]) else { throw ValidationError("bad command \(command)") }
                say(try await measurements.watch(seconds: seconds, reference: reference))
            case "settle":
                guard words.count == 3, let hash = UInt64(words[1]), let timeout = UInt64(words[2]) else { throw ValidationError("bad command \(command)") }
                say(try await measurements.settle(hash: hash, timeoutMillis: timeout))
            case "upload-start":
                guard words.count == 3, let session = zrcSession else { throw ValidationError("bad command \(command) (ZRC only)") }
                transfer = Task { await Self.upload(words[1], to: words[2], in: session) }
                say("upload started")
            case "download-start":
                guard words.count == 5, let size = UInt64(words[4]), let session = zrcSession else {
                    throw ValidationError("bad command \(command) (ZRC only)")
                }
                transfer = Task { await Self.download(words[1], into: words[2], as: words[3], size: size, in: session) }
                say("download started")
            case "upload-wait", "download-wait":
                guard let running = transfer else { throw ValidationError("no transfer started") }
                say(await running.value)
                transfer = nil
            default:
                throw ValidationError("unknown command \(command)")
            }
        }
        await closeSession?()
    }

    /// Uploads `local` to `remote`: `upload SECONDS WIRE_BYTES_SENT`, or why it failed.
    private static func upload(_ local: String, to remote: String, in session: ControllerSession) async -> String {
        do {
            let (seconds, wire) = try await FilesControllerCommand.timedUpload(local, to: remote, in: session)
            return "upload \(seconds) \(wire)"
        } catch {
            return "upload failed \(error)"
        }
    }

    /// Downloads `remote` into `directory` as `name`: `download SECONDS WIRE_BYTES_RECEIVED` (frames
    /// included: they share the direction), or why it failed.
    private static func download(_ remote: String, into directory: String, as name: String, size: UInt64,
                                 in session: ControllerSession) async -> String {
        do {
            let receivedBefore = await session.receivedBytes()
            let clock = ContinuousClock()
            let started = clock.now
            try await session.files.download(try RemotePath(parsing: remote), into: try ConfinedDirectory.open(directory),
                                             as: try FileName(validating: name), size: size, replace: true, resume: false) { _ in }
            let seconds = FilesControllerCommand.seconds(clock.now - started)
            return "download \(seconds) \(await session.receivedBytes() - receivedBefore)"
        } catch {
            return "download failed \(error)"
        }
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
