public import ZRCFrames
public import ZRCProtocol

/// What the host shares: implemented over X11 by `ZRCHostX11`, by fakes in tests.
///
/// Several sessions may watch at once; each is a `ScreenViewer` with its own record of what
/// changed since it last looked (see `DamageLedger`).
public protocol ScreenSource: Sendable {
    /// Captures the shared area now for `viewer`. The capture's `hints` cover every area that may
    /// have changed since this viewer's previous capture (nil: unknown, compare everything).
    func capture(for viewer: ScreenViewer) async throws -> ScreenCapture
    /// Returns when the screen may have changed since `viewer` last looked (true), or after
    /// `timeout` at the latest (false), or early when the task is cancelled.
    func waitForChange(for viewer: ScreenViewer, timeout: Duration) async -> Bool
    /// The viewer's picture now shows capture `generation` without having captured it (its
    /// session sent an update another session made from that capture): damage that capture
    /// shows is no longer owed to it.
    func skip(for viewer: ScreenViewer, through generation: UInt64) async
    /// The viewer's session ended: stop keeping its damage.
    func viewerLeft(_ viewer: ScreenViewer) async
    /// The pointer: its position always, its shape when it has one to report (nil when the source
    /// has no cursor, e.g. a server without XFixes).
    func cursor() async throws -> CursorState?
    /// The monitors of the shared area, in its pixels (empty: the source does not know them).
    func monitors() async -> [MonitorArea]
}

extension ScreenSource {
    public func cursor() async throws -> CursorState? { nil }
    public func monitors() async -> [MonitorArea] { [] }
    /// A source without generations keeps all damage owed: the viewer compares a little more.
    public func skip(for viewer: ScreenViewer, through generation: UInt64) async {}
}

/// The pointer as the host sees it, in shared-area pixels (the hotspot's position);
/// `shape.shapeID` changes exactly when the shape does.
public struct CursorState: Sendable, Equatable {
    public var x: Int32
    public var y: Int32
    /// nil while the pointer is hidden: no visible image (an application blanked it), or it is
    /// outside the shared area.
    public var shape: CursorShape?

    public init(x: Int32, y: Int32, shape: CursorShape?) {
        self.x = x
        self.y = y
        self.shape = shape
    }
}

public struct ScreenCapture: Sendable {
    public var pixels: PixelBuffer
    public var hints: [PixelRect]?
    public var captureMicros: UInt64
    /// Names these exact pixels: captures with the same nonzero generation hold the same pixels
    /// (the source read nothing between them), so sessions can share their encodings. 0: unknown.
    public var generation: UInt64

    public init(pixels: PixelBuffer, hints: [PixelRect]?, captureMicros: UInt64, generation: UInt64 = 0) {
        self.pixels = pixels
        self.hints = hints
        self.captureMicros = captureMicros
        self.generation = generation
    }
}

/// Where the controller's input goes: XTest in the executable, a recorder in tests.
public protocol InputSink: Sendable {
    func inject(_ event: InputEvent) async throws
    /// Releases every key and button still held (a session ended mid-press).
    func releaseAll() async
}

/// The screen-sharing parts a server is given; absent for a host that only pairs and pings.
public struct ScreenSharing: Sendable {
    public var source: any ScreenSource
    public var input: (any InputSink)?
    /// A fresh JPEG encoder per session (encoders are not shared between tasks).
    public var makeEncoder: @Sendable () throws -> any RegionEncoder
    public var stream: FrameStream.Configuration
    /// Called after every frame update is queued, with what it cost (benchmarks, diagnostics).
    public var onUpdate: (@Sendable (UpdateMeasurement) -> Void)?
    /// Whether a large change may go in parts sized to the path (see `FrameScheduler`); off only
    /// where whole updates are what is measured (the JPEG quality of a full-screen motion frame).
    public var splitsLargeUpdates = true
    /// JPEG encodings shared by the sessions of this host (see `SharedEncodings`).
    public let encodings = SharedEncodings()
    /// Whole updates shared by sessions in the same state (see `SharedUpdates`).
    public let updates = SharedUpdates()
    /// Whether sessions share updates and JPEG encodings (off only to measure what sharing saves).
    public var sharesEncodings = true

    public init(source: any ScreenSource, input: (any InputSink)?, makeEncoder: @escaping @Sendable () throws -> any RegionEncoder,
                stream: FrameStream.Configuration = .init(), onUpdate: (@Sendable (UpdateMeasurement) -> Void)? = nil) {
        self.source = source
        self.input = input
        self.makeEncoder = makeEncoder
        self.stream = stream
        self.onUpdate = onUpdate
    }
}

/// Where one frame update's host time went, stage by stage (µs), and what it put on the wire.
public struct UpdateMeasurement: Sendable {
    /// Reading the changed areas from the screen.
    public var captureMicros: UInt64
    /// Confirming which tiles changed.
    public var detectMicros: UInt64
    /// Planning and encoding the rectangles.
    public var encodeMicros: UInt64
    /// Serializing, encrypting and queueing the update for the socket.
    public var sendMicros: UInt64
    /// Encrypted bytes the update took on the wire.
    public var wireBytes: Int
    public var rects: Int
    /// JPEG quality of the update (0: no JPEG in it, lossless).
    public var quality: Int
    /// A high-quality re-send of still areas rather than a change.
    public var isRefinement: Bool

    public var hostMicros: UInt64 { captureMicros + detectMicros + encodeMicros + sendMicros }
}
