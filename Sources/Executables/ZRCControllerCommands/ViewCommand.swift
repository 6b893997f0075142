public import ArgumentParser
import Foundation
import ZRCChafa
import ZRCCommandSupport
import ZRCControllerKit
public import ZRCViewer
import ZRCViewerKit
import ZRCWebViewerKit
import ZRCStorage

struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show a paired host's screen in this terminal and control it with mouse and keyboard.",
        discussion: """
            The renderer is chosen from what the terminal answers: kitty graphics, then sixel, then Unicode \
            symbols in 24-bit colour. Ctrl+] then ? shows the keys (q detaches, + and - zoom, arrows pan). \
            When the host goes away the viewer reconnects after 2 s, 4 s, 8 s, then every 10 s; a changed host \
            key or a revoked controller ends it with an explanation. What the host copies is offered on the status \
            line, and Ctrl+] c puts it into this terminal's clipboard (OSC 52); it is never written there unasked \
            unless --clipboard-from-host is given. A paste is typed, or with Ctrl+] p goes through the host's clipboard.
            """)

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
    var name: String

    @Option(help: "kitty, sixel or symbols (default: the best the terminal supports).")
    var renderer: RendererKind?

    @Flag(help: "Watch only: send no input, and ask the host for a view-only session.")
    var viewOnly = false

    @Option(help: "Frames drawn per second, at most (1…240).")
    var maxFPS = 60

    @Option(help: "How long to wait for the terminal's answers to its capability queries, e.g. 2s (a terminal far away or busy answers late; it usually ends at once with the last answer).")
    var probeTimeout = "0.8s"

    @Flag(help: "Receive every pixel of the remote screen. By default the host sends the picture at the size the terminal shows it (and only the zoomed region), which saves bandwidth on slow links.")
    var fullResolution = false

    @Flag(help: "Exchange no clipboard with the host: its copies are not even offered, and pastes are typed (controller.json: \"clipboard\": false).")
    var noClipboard = false

    @Flag(help: "Write every copy the host makes into this terminal's clipboard without asking (controller.json: \"clipboardFromHost\": true). Off by default: anything on the host's display can set its clipboard, and what lands here may be pasted into a local shell.")
    var clipboardFromHost = false

    @Flag(help: "Show the screen in a browser window instead of this terminal: every pixel, true colour, your keyboard layout, touch. Prints the page's address (keep it private: it holds the page's token) and opens it when this runs in a desktop session.")
    var web = false

    @Option(help: "With --web: the loopback address and port to serve the page on (default 127.0.0.1:0, any free port).")
    var listen = "127.0.0.1:0"

    @Flag(help: "With --web: print the page's address but do not open a browser.")
    var noOpen = false

    func validate() throws {
        if LoopbackAddress(listen) == nil {
            throw ValidationError("--listen `\(listen)` is not a loopback address and port (127.0.0.1:PORT, [::1]:PORT, localhost:PORT): the page is never served to other machines")
        }
        if !web, listen != "127.0.0.1:0" || noOpen { throw ValidationError("--listen and --no-open go with --web") }
        if noClipboard, clipboardFromHost { throw ValidationError("--no-clipboard and --clipboard-from-host contradict each other") }
        guard (1...240).contains(maxFPS) else { throw ValidationError("--max-fps must be between 1 and 240") }
        guard let probe = DurationText.duration(probeTimeout), probe > .zero, probe <= .seconds(60) else {
            throw ValidationError("--probe-timeout `\(probeTimeout)` is not a duration of at most 60 s (e.g. 0.8s, 2s)")
        }
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let clipboard = !noClipboard && context.config.clipboard
            // The browser acknowledges what it drew, and the host's pace follows it.
            let controller = try context.controller(showsScreen: true, wantsClipboard: clipboard, viewerAcknowledges: web, wantsFiles: web)
            // Fail before taking over the terminal when the name is unknown.
            _ = try await context.knownHost(named: name)
            let name = self.name
            if web {
                let exit = try await WebView.run(
                    configuration: WebViewerConfiguration(hostName: name, viewOnly: viewOnly, clipboard: clipboard,
                                                          clipboardFromHost: clipboard && (clipboardFromHost || context.config.clipboardFromHost)),
                    listen: LoopbackAddress(listen)!, open: !noOpen, logger: context.logger,
                    openSession: { viewOnly async throws(ControllerError) in try await controller.connect(to: name, viewOnly: viewOnly) })
                try Self.finish(exit, name: name)
                return
            }
            let viewer = TerminalViewer(
                configuration: ViewerConfiguration(hostName: name, viewOnly: viewOnly, renderer: renderer ?? Self.renderer(context.config.renderer),
                                                   maximumFramesPerSecond: maxFPS,
                                                   probeTimeout: DurationText.duration(probeTimeout) ?? .milliseconds(800),
                                                   fullResolution: fullResolution, clipboard: clipboard,
                                                   clipboardFromHost: clipboard && (clipboardFromHost || context.config.clipboardFromHost),
                                                   pasteMode: Self.pasteMode(context.config.pasteMode),
                                                   transfersBeside: { TransferBoard.summary(host: name) }),
                openSession: { viewOnly async throws(ControllerError) in try await controller.connect(to: name, viewOnly: viewOnly) },
                makeRenderer: Self.makeRenderer, logger: context.logger)
            try Self.finish(await viewer.run(), name: name)
        }
    }

    /// controller.json's `renderer` (nil: the best the terminal supports).
    static func renderer(_ choice: RendererChoice) -> RendererKind? {
        switch choice {
        case .auto: nil
        case .kitty: .kitty
        case .sixel: .sixel
        case .symbols: .symbols
        }
    }

    static func pasteMode(_ choice: PasteModeChoice) -> PasteMode {
        switch choice {
        case .type: .type
        case .paste: .paste
        case .setClipboard: .setClipboard
        }
    }

    static func finish(_ exit: ViewerExit, name: String) throws {
        switch exit {
        case .detached:
            Console.line("Left the viewer of `\(name)`.")
        case .terminalClosed:
            break
        case .signal(let number):
            throw ExitCode(128 + number)
        case .stopped(let message):
            throw CommandError(.refused, message)
        }
    }

    @Sendable static func makeRenderer(_ kind: RendererKind, sharedMemory: (any KittySharedMemoryWriter)?,
                                       capabilities: TerminalCapabilities) throws -> any TerminalRenderer {
        switch kind {
        case .kitty: KittyRenderer(partialUpdates: capabilities.isKitty, sharedMemory: sharedMemory)
        case .sixel: ChafaSixelRenderer()
        case .symbols: ChafaSymbolsRenderer()
        }
    }
}

extension RendererKind: ExpressibleByArgument {}
