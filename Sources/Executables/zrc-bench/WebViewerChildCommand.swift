import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCStorage
import ZRCSodium
import ZRCViewerKit
import ZRCWebViewerKit

/// `zrc-bench web`'s viewer, in a process of its own so its CPU and memory are its own: pairs
/// with the invite read on stdin, runs the browser viewer (`zrc-ctl view --web`'s core) and prints
/// `url URL`; then answers `stats` with `stats RECEIVED SENT RSS_KIB`.
struct WebViewerChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-viewer", abstract: "The browser viewer benchmark's zrc-ctl side (used by `web`).", shouldDisplay: false)

    @Option(help: "Directory for this controller's known-hosts file.")
    var directory: String

    func run() async throws {
        var input = StandardInputLines.stream().makeAsyncIterator()
        guard let invite = await input.next() else { throw ValidationError("the web viewer reads an invite on stdin") }
        var logger = Logger(label: "zrc-bench.web-viewer")
        logger.logLevel = .warning
        let crypto = try SodiumCrypto()
        let decoders = try FrameCodec.decoderFactory()
        var configuration = ControllerConfiguration(makeDecoder: decoders)
        configuration.viewerAcknowledges = true
        let controller = ZRCController(identity: crypto.generateKeyPair(), crypto: crypto,
                                       knownHosts: KnownHostsStore(file: URL(fileURLWithPath: directory).appendingPathComponent("known-hosts.json")),
                                       controllerName: "bench-web", configuration: configuration, logger: logger)
        _ = try await controller.pair(inviteText: invite, name: "bench")
        let server = try await LocalPageServer.bind(host: "127.0.0.1", port: 0, logger: logger) { count in
            var generator = SystemRandomNumberGenerator()
            return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        let viewer = WebViewer(configuration: WebViewerConfiguration(hostName: "bench"),
                               openSession: { viewOnly async throws(ControllerError) in try await controller.connect(to: "bench", viewOnly: viewOnly) },
                               logger: logger)
        say("url \(server.pageURL)")
        let running = Task { await viewer.run(server: server) }
        while let command = await input.next() {
            switch command {
            case "stats":
                let received = await viewer.framesReceived, sent = await viewer.framesSent
                say("stats \(received) \(sent) \(ProcessMemory.residentKiB(of: getpid()) ?? 0)")
            case "quit":
                await viewer.stop(.detached)
                _ = await running.value
                return
            default:
                throw ValidationError("unknown command \(command)")
            }
        }
        await viewer.stop(.detached)
        _ = await running.value
    }
}

extension WebViewerChildCommand {
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Resident memory and CPU time of processes, from /proc.
enum ProcessMemory {
    static func residentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    /// User + system CPU seconds of `pid` and every process under it.
    static func cpuSeconds(ofTree root: Int32) -> Double {
        var children: [Int32: [Int32]] = [:]
        var ticks: [Int32: Double] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            // After the name: state(0) ppid(1) … utime(11) stime(12).
            guard fields.count > 12, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            children[parent, default: []].append(pid)
            ticks[pid] = user + system
        }
        var total = 0.0, queue = [root]
        while let pid = queue.popLast() {
            total += ticks[pid] ?? 0
            queue += children[pid] ?? []
        }
        return total / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
