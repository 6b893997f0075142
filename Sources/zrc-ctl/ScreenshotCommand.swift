import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCJPEG
import ZRCStorage
import ZRCZlib

struct ScreenshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot",
        abstract: "Save the host's screen to a file: PNG (lossless) or JPEG (quality 100, 4:4:4) by extension.",
        discussion: "Waits until the screen has settled (high-quality refinement included), then writes the file with mode 0600.")

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
    var name: String

    @Argument(help: "Where to write: a .png, .jpg or .jpeg file.")
    var file: String

    @Option(help: "How long to wait for the screen, e.g. 10s.")
    var timeout = "10s"

    func validate() throws {
        guard ["png", "jpg", "jpeg"].contains(URL(fileURLWithPath: file).pathExtension.lowercased()) else {
            throw ValidationError("\(file): the file must end in .png, .jpg or .jpeg")
        }
        guard DurationText.duration(timeout).map({ $0 > .zero }) == true else {
            throw ValidationError("--timeout `\(timeout)` is not a duration (e.g. 10s, 1.5m)")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller(showsScreen: true)
            let session: ControllerSession
            do {
                session = try await controller.connect(to: name, viewOnly: true)
            } catch let error as ControllerError {
                throw CommandError(error)
            }
            let frame = await settledFrame(session, within: DurationText.duration(timeout) ?? .seconds(10))
            let end = await session.end
            await session.close(text: "screenshot taken")
            if frame == nil, let end {
                throw CommandError(.failure, "the session ended before the host sent its screen: \(end)")
            }
            guard let frame else {
                throw CommandError(.failure, "the host sent no screen within \(timeout) (is it sharing a display? see its log)")
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
                                             region: PixelRegion(x: 0, y: 0, width: frame.pixels.width, height: frame.pixels.height),
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

    /// The newest frame once no update has arrived for half a second (motion over, refinement done).
    private func settledFrame(_ session: ControllerSession, within limit: Duration) async -> ComposedFrame? {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var newest: ComposedFrame?
        var lastChange = clock.now
        while clock.now < deadline {
            if let frame = await session.pollFrame(newerThan: newest?.version ?? 0) {
                newest = frame
                lastChange = clock.now
            } else if newest != nil, clock.now - lastChange >= .milliseconds(500) {
                return newest
            }
            if await session.end != nil { return newest }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return newest
    }
}
