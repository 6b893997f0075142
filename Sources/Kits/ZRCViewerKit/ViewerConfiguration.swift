public import ZRCControllerKit
public import ZRCViewer

/// How `zrc-ctl view` runs.
public struct ViewerConfiguration: Sendable {
    /// The paired host's name (for the status line).
    public var hostName: String
    /// Send no input; ask the host for a view-only session.
    public var viewOnly: Bool
    /// A fixed renderer, or nil to pick the best the terminal supports.
    public var renderer: RendererKind?
    /// Frames drawn per second, at most.
    public var maximumFramesPerSecond: Int
    /// How long to wait for the terminal's answers to the capability queries.
    public var probeTimeout: Duration
    /// Ask kitty-protocol terminals to read pixels from shared memory (only a terminal on this
    /// machine can; the probe checks that it does).
    public var sharedMemory: Bool
    /// Receive every pixel of the screen instead of the picture the terminal shows (the host
    /// otherwise scales to the terminal's size and sends only the zoomed region).
    public var fullResolution: Bool
    /// Exchange the clipboard with the host: pastes may go through its clipboard (Ctrl+] p), and
    /// its copies are offered on the status line (Ctrl+] c takes one into this terminal's clipboard).
    public var clipboard: Bool
    /// Write every copy the host announces into this terminal's clipboard (OSC 52) without asking;
    /// off by default, since anything on the host's display can set what would then be pasted
    /// into a local shell.
    public var clipboardFromHost: Bool
    /// What a paste does at first (Ctrl+] p cycles).
    public var pasteMode: PasteMode
    /// What file copies to or from this host (`zrc-ctl cp` beside the viewer) are doing, for the
    /// status line; asked once a second (nil: nothing runs).
    public var transfersBeside: (@Sendable () -> String?)?

    public init(hostName: String, viewOnly: Bool = false, renderer: RendererKind? = nil, maximumFramesPerSecond: Int = 60,
                probeTimeout: Duration = .milliseconds(800), sharedMemory: Bool = true, fullResolution: Bool = false, clipboard: Bool = true,
                clipboardFromHost: Bool = false, pasteMode: PasteMode = .type, transfersBeside: (@Sendable () -> String?)? = nil) {
        self.transfersBeside = transfersBeside
        self.pasteMode = pasteMode
        self.clipboard = clipboard
        self.clipboardFromHost = clipboardFromHost
        self.fullResolution = fullResolution
        self.hostName = hostName
        self.viewOnly = viewOnly
        self.renderer = renderer
        self.maximumFramesPerSecond = max(1, maximumFramesPerSecond)
        self.probeTimeout = probeTimeout
        self.sharedMemory = sharedMemory
    }
}

/// Opens a session with the host (the controller core's `connect`), asked for view-only or not.
public typealias SessionOpener = @Sendable (_ viewOnly: Bool) async throws(ControllerError) -> ControllerSession

/// Makes the renderer of a kind; the executable wires libchafa (sixel, symbols) and kitty.
/// `sharedMemory` is the kitty shared-memory writer when the terminal can read it.
public typealias RendererFactory = @Sendable (RendererKind, _ sharedMemory: (any KittySharedMemoryWriter)?, TerminalCapabilities) throws
    -> any TerminalRenderer

/// Why the viewer ended.
public enum ViewerExit: Sendable, Equatable {
    /// The user detached (Ctrl+] q).
    case detached
    /// SIGINT, SIGTERM or SIGHUP.
    case signal(Int32)
    /// The viewer cannot go on: the message says why (a changed host key, a revoked controller,
    /// the terminal failed).
    case stopped(String)
    /// The terminal's input ended (the terminal was closed).
    case terminalClosed
}
