import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCHostKit
import ZRCHostX11
import ZRCMemory
import ZRCFiles
import ZRCProtocol

/// The host `flood` attacks (and `links` runs in the laboratory's host namespace), in a process of
/// its own so that its memory is measured alone: the real host server with the X11 source and
/// libjpeg-turbo, as `zrc-host serve` runs it. Prints
/// `port N` once listening, then one invite per `invite` line read on stdin (and its CPU time,
/// `cpu SECONDS`, per `cpu` line); stdin closing stops it.
struct FloodHostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood-host", abstract: "Run the host that `flood` attacks.", shouldDisplay: false)

    @Option(help: "X display to share.")
    var display: String

    @Option(help: "Directory for the host's files.")
    var directory: String

    @Option(help: "Address to listen on (the network laboratory's host address).")
    var listen = "127.0.0.1"

    @Option(help: "Share this directory's files both ways, as `zrc-host serve` shares a home (`zrc-bench files`).")
    var fileRoot: String?

    func run() async throws {
        var logger = Logger(label: "zrc-bench.flood-host")
        logger.logLevel = .error
        let source = try X11ScreenSource(displayName: display, monitor: nil, logger: logger)
        let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        let files = try fileRoot.map { root in
            FileSharing(root: try ConfinedDirectory.open(root), directions: .both, uploadDirectory: .root, maxFileBytes: FileTransferLimits.maxFileBytes)
        }
        let host = try BenchHost(directory: URL(fileURLWithPath: directory), sharing: sharing, listen: listen, files: files, logger: logger)
        let address = try await host.start()
        say("port \(address.port)")
        for await request in StandardInputLines.stream() {
            switch request {
            case "invite": say(try await host.invite())
            case "cpu": say("cpu \(ProcessCPU.seconds())")
            default: break
            }
        }
        await host.stop()
    }

    /// A line on stdout, unbuffered: the parent waits for it.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
