import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCTerminal
import ZRCViewerKit
import ZRCWebViewerKit

/// `zrc-ctl view NAME --web`: serves the viewer page on loopback, prints its address alone on a
/// line of stdout, opens it in the user's browser when this runs in a graphical session of its
/// own, and runs until Ctrl+C, the page's Disconnect, or the end of the session.
enum WebView {
    static func run(configuration: WebViewerConfiguration, listen: LoopbackAddress, open: Bool, logger: Logger,
                    openSession: @escaping SessionOpener) async throws -> ViewerExit {
        let server: LocalPageServer
        do {
            server = try await LocalPageServer.bind(host: listen.host, port: listen.port, logger: logger, randomBytes: SecureRandom.bytes)
        } catch {
            throw CommandError(.failure, "cannot listen on \(listen) for the browser viewer: \(error)")
        }
        let url = server.pageURL
        // Alone on its line, so scripts can read it; the token is in the fragment.
        Console.line(url)
        var opener: BrowserOpener?
        if open {
            opener = BrowserOpener.openIfGraphical(url: url, logger: logger)
        }
        defer { opener?.removeRedirect() }
        let viewer = WebViewer(configuration: configuration, openSession: openSession, logger: logger)
        let signals = SignalEvents()
        let watcher = Task {
            for await number in signals.signals where number != SIGWINCH {
                await viewer.stop(.signal(number))
                return
            }
        }
        defer { watcher.cancel() }
        return await viewer.run(server: server)
    }
}

/// A cryptographic random source: Swift's system generator (getrandom on Linux).
enum SecureRandom {
    @Sendable static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// `--listen`: a loopback address and port.
struct LoopbackAddress: CustomStringConvertible {
    let host: String
    let port: Int

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// "127.0.0.1:PORT", "[::1]:PORT", "localhost:PORT" or a bare port; nothing that others can reach.
    init?(_ text: String) {
        var hostPart = "127.0.0.1", portPart = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = String(text[text.index(after: text.startIndex)..<close])
            portPart = String(text[text.index(close, offsetBy: 2)...])
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = String(text[..<colon])
            portPart = String(text[text.index(after: colon)...])
        }
        if hostPart == "localhost" { hostPart = "127.0.0.1" }
        guard hostPart == "::1" || hostPart.hasPrefix("127."), hostPart.split(separator: ".").count == 4 || hostPart == "::1",
              let port = Int(portPart), (0...65535).contains(port) else { return nil }
        host = hostPart
        self.port = port
    }
}
