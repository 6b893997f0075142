import Foundation
import Glibc
public import Logging
import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCTerminal
import ZRCViewer

/// `zrc-ctl view`: the remote screen in this terminal, the user's mouse and keys on the remote
/// screen, a status line, and reconnection with backoff when the host goes away.
///
/// One actor owns the viewer's state. Three streams feed it: the terminal's input (a reader
/// thread), signals, and the session's events; frames are drawn by a separate loop that always
/// takes the newest frame (latest wins), so a slow terminal never builds a queue. Every exit path
/// (detach, host gone for good, error, SIGINT/SIGTERM/SIGHUP, the terminal closing) goes through
/// one teardown that restores the terminal.
public actor TerminalViewer {
    enum Event: Sendable {
        case input([UInt8])
        case inputEnded
        case escapeTimeout(generation: Int)
        case signal(Int32)
        case probeTimeout
        case tick
        case finish(ViewerExit)
    }

    let configuration: ViewerConfiguration
    let openSession: SessionOpener
    let makeRenderer: RendererFactory
    let logger: Logger
    let writer = TerminalWriter()
    let events: AsyncStream<Event>
    let sink: AsyncStream<Event>.Continuation
    let renderRequests: AsyncStream<Void>
    let renderSink: AsyncStream<Void>.Continuation

    var device: TerminalDevice?
    var parser = TerminalInputParser()
    var escapeGeneration = 0
    var capabilities = TerminalCapabilities()
    var modes = TerminalModes(pixelMouse: false, kittyKeyboard: false)
    var layout = ViewerLayout(columns: 80, rows: 24, reportedCell: nil, windowPixels: (0, 0))
    var area = TerminalArea(column: 0, row: 0, columns: 80, rows: 23, cellWidth: 10, cellHeight: 20)
    var mapper: ViewerInputMapper
    var renderer: (any TerminalRenderer)?
    var picture = ViewerPicture()
    var status: ViewerStatus
    /// When the status line last asked what copies run beside the viewer.
    var transfersRead: ContinuousClock.Instant = .now - .seconds(10)
    var session: ControllerSession?
    /// The picture last asked of the host (asked again only when it changes).
    var requestedPicture: PictureRequest?
    /// The monitor shown (nil: the whole screen), as the viewer core chose it.
    var shownArea: MonitorArea?
    var needsFullRedraw = true
    var needsClear = false
    var showHelp = false
    var exit: ViewerExit?
    var inputSentMicros: UInt64?
    var noticeUntilMicros: UInt64?
    var framesDrawn = RateMeter()
    var bytesReceived = RateMeter()
    var lastReceivedTotal = 0
    /// The session logic shared with the browser viewer.
    var core: ViewerCore

    public init(configuration: ViewerConfiguration, openSession: @escaping SessionOpener, makeRenderer: @escaping RendererFactory,
                logger: Logger) {
        self.configuration = configuration
        self.openSession = openSession
        self.makeRenderer = makeRenderer
        self.logger = logger
        (events, sink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (renderRequests, renderSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        mapper = ViewerInputMapper(viewport: Viewport(remoteWidth: 1, remoteHeight: 1, areaWidth: 1, areaHeight: 1), cellWidth: 1,
                                   cellHeight: 1, pasteMode: configuration.pasteMode)
        status = ViewerStatus(host: TerminalSafeText.sanitized(configuration.hostName), renderer: "")
        core = ViewerCore(viewOnly: configuration.viewOnly, clipboard: configuration.clipboard, clipboardFromHost: configuration.clipboardFromHost,
                          takeHint: "Ctrl+] c")
    }

    /// Runs the viewer until the user leaves or it cannot go on; the terminal is restored on return.
    public func run() async -> ViewerExit {
        let device: TerminalDevice
        let reader: TerminalReader
        do {
            device = try TerminalDevice()
            try device.enterRawMode()
            reader = try TerminalReader(descriptor: device.inputDescriptor)
        } catch {
            return .stopped(error.message)
        }
        self.device = device
        let signals = SignalEvents()
        let sharedMemory = configuration.sharedMemory ? SharedMemoryImages() : nil
        var tasks = [
            Task { [sink] in
                for await chunk in reader.chunks { sink.yield(.input(chunk)) }
                sink.yield(.inputEnded)
            },
            Task { [sink] in
                for await number in signals.signals { sink.yield(.signal(number)) }
            },
        ]
        var iterator = events.makeAsyncIterator()

        let backlog = await probe(sharedMemory: sharedMemory, iterator: &iterator)
        if exit == nil {
            do {
                try await start(sharedMemory: sharedMemory)
            } catch {
                exit = .stopped("the terminal could not be set up: \(error)")
            }
        }
        let renderLoop = Task { await self.renderLoop() }
        if exit == nil {
            tasks.append(Task { await self.superviseConnection() })
            tasks.append(Task { [sink] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    sink.yield(.tick)
                }
            })
            await handleTerminalEvents(backlog)
        }
        while exit == nil, let event = await iterator.next(isolation: self) {
            await handle(event)
        }

        // Teardown: nothing draws after this point, then the terminal gets its modes back.
        tasks.forEach { $0.cancel() }
        renderSink.finish()
        await renderLoop.value
        await session?.close(text: "the viewer was closed")
        reader.stop()
        writer.writeNow((renderer?.clear() ?? []) + Array(modes.leave.utf8))
        device.restore()
        sharedMemory?.removeLeftovers()
        self.device = nil
        return exit ?? .terminalClosed
    }

    /// Asks the terminal what it can do; returns the user's input that arrived meanwhile.
    private func probe(sharedMemory: SharedMemoryImages?, iterator: inout AsyncStream<Event>.Iterator) async -> [TerminalEvent] {
        let probeImage = sharedMemory.flatMap { try? $0.write([0, 0, 0]) }
        var probe = TerminalProbe()
        var backlog: [TerminalEvent] = []
        do {
            try await writer.write(Array(TerminalProbe.queries(sharedMemoryName: probeImage).utf8))
        } catch {
            exit = .stopped(error.message)
            return []
        }
        let timeout = Task { [sink, probeTimeout = configuration.probeTimeout] in
            try? await Task.sleep(for: probeTimeout)
            sink.yield(.probeTimeout)
        }
        defer { timeout.cancel() }
        probing: while let event = await iterator.next(isolation: self) {
            switch event {
            case .input(let bytes):
                for event in parser.feed(bytes) {
                    if case .reply(let reply) = event { probe.take(reply) } else { backlog.append(event) }
                }
                if probe.isComplete { break probing }
            case .probeTimeout:
                logger.notice("the terminal did not answer its capability queries within \(configuration.probeTimeout); assuming the basics")
                break probing
            case .signal(let number) where number != SIGWINCH:
                exit = .signal(number)
                break probing
            case .inputEnded:
                exit = .terminalClosed
                break probing
            default:
                continue
            }
        }
        capabilities = probe.capabilities
        return backlog
    }

    /// Chooses the renderer, switches the terminal's modes on and lays out the screen.
    private func start(sharedMemory: SharedMemoryImages?) async throws {
        let kind = configuration.renderer ?? RendererKind.automatic(for: capabilities, environment: ProcessInfo.processInfo.environment)
        let writer: (any KittySharedMemoryWriter)? = kind == .kitty && capabilities.kittySharedMemory ? sharedMemory : nil
        let renderer = try makeRenderer(kind, writer, capabilities)
        let name = renderer.name
        logger.info("renderer \(name); terminal \(capabilities.version ?? "unnamed")")
        status.renderer = name
        self.renderer = renderer
        try relayout()
        let usesTerminalPixels = area.cellWidth == layout.cellWidth && area.cellHeight == layout.cellHeight
        modes = TerminalModes(pixelMouse: capabilities.sgrPixelMouse && usesTerminalPixels, kittyKeyboard: capabilities.kittyKeyboard)
        mapper.reportsPixels = modes.pixelMouse
        mapper.viewOnly = configuration.viewOnly
        try await self.writer.write(Array(modes.enter.utf8))
        requestRender()
    }

    /// Reads the terminal's size and derives the drawing area and the viewport from it.
    func relayout() throws {
        guard let device, let renderer else { return }
        let size = try device.size()
        // The cell size: the terminal's own answer (16t), else the window's pixels from the
        // kernel, else the text area's pixels it answered (14t) at start, else a common guess.
        if capabilities.cellPixels == nil, size.pixelWidth == 0, let text = capabilities.textAreaPixels, size.columns > 0, size.rows > 0 {
            capabilities.cellPixels = (text.width / size.columns, text.height / size.rows)
        }
        layout = ViewerLayout(columns: size.columns, rows: size.rows, reportedCell: capabilities.cellPixels,
                              windowPixels: (size.pixelWidth, size.pixelHeight))
        area = layout.area(pixelsPerCell: renderer.pixelsPerCell(cellWidth: layout.cellWidth, cellHeight: layout.cellHeight))
        mapper.viewport.resizeArea(width: area.pixelWidth, height: area.pixelHeight)
        mapper.cellWidth = Double(area.cellWidth)
        mapper.cellHeight = Double(area.cellHeight)
        needsFullRedraw = true
        needsClear = true
    }

    func requestRender() { renderSink.yield(()) }
}
