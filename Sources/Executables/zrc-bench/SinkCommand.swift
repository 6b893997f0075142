import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCProtocol

/// The benchmark's controller: pairs with the invite read from stdin, opens a session, and
/// decodes and acknowledges every update as `zrc-ctl` would, in a process of its own so its
/// decoding is not counted as host time. Ends when stdin closes.
struct SinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink", abstract: "Receive a host's frames (used by `pipeline`).", shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file.")
    var directory: String

    @Option(help: "Ask the host for pictures of at most WIDTHxHEIGHT (default: every pixel).")
    var picture: String?

    @Flag(help: "Do not decode JPEG rectangles (a view-only audience that leaves the cores to the host).")
    var skipDecode = false

    func validate() throws {
        if picture != nil, pictureSides == nil { throw ValidationError("--picture must look like 1280x720") }
    }

    private var pictureSides: (width: UInt16, height: UInt16)? {
        let sides = picture?.split(separator: "x").compactMap { UInt16($0) } ?? []
        guard sides.count == 2, sides.allSatisfy({ $0 > 0 }) else { return nil }
        return (sides[0], sides[1])
    }

    func run() async throws {
        guard let invite = readLine(strippingNewline: true), !invite.isEmpty else {
            throw ValidationError("the sink reads an invite on stdin")
        }
        let session = try await ControllerSession.bench(invite: invite, directory: directory, label: "zrc-bench.sink", skipDecode: skipDecode)
        if let sides = pictureSides {
            await session.requestPicture(PictureRequest(maxWidth: sides.width, maxHeight: sides.height))
        }
        // Unbuffered: `latency --viewers` waits for this line.
        FileHandle.standardOutput.write(Data("connected\n".utf8))
        // Stdin closing (the benchmark ending or dying) ends the sink.
        Thread.detachNewThread {
            while readLine() != nil {}
            Glibc.exit(0)
        }
        let end = await session.waitUntilEnded()
        throw ValidationError("the session ended: \(end)")
    }
}
