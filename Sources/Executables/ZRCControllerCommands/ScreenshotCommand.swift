import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCJPEG
import ZRCStorage
import ZRCZlib
import ZRCProtocol

struct ScreenshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot",
        abstract: "Save the host's screen to a file: PNG (lossless) or JPEG (quality 100, 4:4:4) by extension.",
        discussion: """
            Waits until every pixel is exactly the host's (the lossless refinement after any JPEG has \
            arrived) and the screen has settled, then writes the file with mode 0600. Without --timeout \
            the wait grows with the path: it goes on while the refinement makes progress (2 minutes at \
            most), and fails — saving nothing — when it stops making any for 10 s.
            """)

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
    var name: String

    @Argument(help: "Where to write: a .png, .jpg or .jpeg file.")
    var file: String

    @Option(help: "How long to wait for an exact screen at most, e.g. 30s (default: as long as the refinement makes progress, 2 minutes at most).")
    var timeout: String?

    func validate() throws {
        guard ["png", "jpg", "jpeg"].contains(URL(fileURLWithPath: file).pathExtension.lowercased()) else {
            throw ValidationError("\(file): the file must end in .png, .jpg or .jpeg")
        }
        if let timeout, DurationText.duration(timeout).map({ $0 > .zero }) != true {
            throw ValidationError("--timeout `\(timeout)` is not a duration (e.g. 10s, 1.5m)")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller(showsScreen: true, exactPictures: true)
            let session: ControllerSession
            do {
                session = try await controller.connect(to: name, viewOnly: true)
            } catch let error as ControllerError {
                throw CommandError(error)
            }
            let started = ContinuousClock.now
            let frame = await exactFrame(session, limit: timeout.flatMap(DurationText.duration))
            let waited = DurationText.describe(seconds: Int((ContinuousClock.now - started).components.seconds))
            let end = await session.end
            await session.close(text: "screenshot taken")
            if frame == nil, let end {
                throw CommandError(.failure, "the session ended before the host sent its screen: \(end)")
            }
            guard let frame else {
                throw CommandError(.failure, "the host sent no screen within \(waited) (is it sharing a display? see its log)")
            }
            if let inexact = frame.inexactPixels, inexact > 0 {
                let share = Double(inexact) * 100 / Double(max(1, frame.pixels.width * frame.pixels.height))
                throw CommandError(.failure, "nothing saved: after \(waited) \(String(format: "%.1f", share))% of the picture was not yet exact "
                    + "(JPEG, or not drawn yet) — the path is slow or the screen keeps changing; try again with a longer --timeout (e.g. 2m)")
            }
            let bytes: [UInt8]
            if URL(fileURLWithPath: file).pathExtension.lowercased() == "png" {
                do {
                    bytes = try PNGWriter.encode(frame.pixels) { raw throws(ZlibError) in try ZlibDeflate.compress(raw) }
                } catch {
                    throw CommandError(.failure, "cannot write the PNG: \(error)")
                }
            } else {
                bytes = try frame.pixels.bytes.withUnsafeBytes { pixels in
                    try JPEGEncoder().encode(bgrx: pixels, bytesPerRow: frame.pixels.bytesPerRow,
                                             region: PixelRect(x: 0, y: 0, width: frame.pixels.width, height: frame.pixels.height),
                                             quality: 100, subsampling: .yuv444)
                }
            }
            do {
                try PrivateFile.writeAtomically(bytes, to: URL(fileURLWithPath: file), tighteningDirectory: false)
            } catch let error as StorageError {
                throw CommandError(.storage, error.description)
            }
            Console.line("Saved \(frame.pixels.width)x\(frame.pixels.height) screen of `\(name)` to \(file).")
        }
    }

    /// The newest frame once every pixel is exact and no update has come for half a second; or,
    /// at the deadline, the newest frame whatever it is. `limit` nil: the deadline moves on
    /// while the picture gets more exact (10 s without progress ends it; 2 minutes in all).
    private func exactFrame(_ session: ControllerSession, limit: Duration?) async -> ComposedFrame? {
        let clock = ContinuousClock()
        let start = clock.now
        let hardDeadline = start + (limit ?? .seconds(120))
        let patience = Duration.seconds(10)
        var deadline = limit == nil ? start + patience : hardDeadline
        var newest: ComposedFrame?
        var lastChange = clock.now
        var fewestInexact = Int.max
        var announced = false
        while clock.now < min(deadline, hardDeadline) {
            if let frame = await session.pollFrame(newerThan: newest?.version ?? 0) {
                newest = frame
                lastChange = clock.now
                if let inexact = frame.inexactPixels, inexact < fewestInexact {
                    fewestInexact = inexact
                    if limit == nil { deadline = clock.now + patience }
                }
            } else if let newest, newest.isExact != false, clock.now - lastChange >= .milliseconds(500) {
                return newest
            }
            if await session.end != nil { return newest }
            if await session.awaitingApproval {
                // The person at the host has not answered yet: their time does not count.
                if !announced { Console.warn("zrc-ctl: waiting for the person at the host to accept this session…") }
                announced = true
                deadline = max(deadline, clock.now + patience)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return newest
    }
}
