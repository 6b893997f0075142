import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCTerminal
import Logging
import ZRCWebViewerKit

/// `zrc-ctl app`: the controller as an app in the browser — Devices (with online dots), Pair,
/// Settings, LAN, and the viewer in the same page — served on loopback with the viewer's
/// protections.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Open the controller's app in the browser: devices with presence, pairing, settings and the viewer.",
        discussion: """
            Serves the app on loopback only, prints its address alone on a line (keep it private: it holds the \
            page's token) and opens it when this runs in a desktop session. The page gets in only with that token, \
            from its own origin; another local user or web page cannot. Runs until Ctrl+C, or 10 minutes after the \
            last page was closed.
            """)

    @OptionGroup var options: ControllerOptions

    @Option(help: "The loopback address and port to serve the app on (default 127.0.0.1:0, any free port).")
    var listen = "127.0.0.1:0"

    @Flag(help: "Print the app's address but do not open a browser.")
    var noOpen = false

    func validate() throws {
        if LoopbackAddress(listen) == nil {
            throw ValidationError("--listen `\(listen)` is not a loopback address and port (127.0.0.1:PORT, [::1]:PORT, localhost:PORT): the app is never served to other machines")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let app = ControllerApp(context: context)
            let address = LoopbackAddress(listen)!
            let server: LocalPageServer
            do {
                server = try await LocalPageServer.bind(host: address.host, port: address.port, logger: context.logger, randomBytes: SecureRandom.bytes,
                                                        app: { path, body in await app.handle(path: path, body: body) })
            } catch {
                throw CommandError(.failure, "cannot listen on \(address) for the app: \(error)")
            }
            server.routeFiles { await app.currentViewer() }
            let url = server.pageURL
            Console.line(url)
            let opener = noOpen ? nil : BrowserOpener.openIfGraphical(url: url, logger: context.logger)
            defer { opener?.removeRedirect() }
            let signals = SignalEvents()
            let reason: String = await withTaskGroup(of: String.self) { group in
                group.addTask {
                    try? await server.run { link in await app.adopt(link) }
                    return "the server stopped"
                }
                group.addTask {
                    for await number in signals.signals where number != SIGWINCH { return "signal \(number)" }
                    return "signals ended"
                }
                group.addTask {
                    // Idle: no page asked anything for a while (the open page asks every 30 s).
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(10))
                        if ContinuousClock.now - (await app.lastRequest) > ControllerApp.idleLimit { return "idle" }
                    }
                    return "cancelled"
                }
                let first = await group.next() ?? "stopped"
                await server.close()
                _ = await app.stopViewing()
                group.cancelAll()
                return first
            }
            context.logger.info("the app stopped: \(reason)")
        }
    }
}
