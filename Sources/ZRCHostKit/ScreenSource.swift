public import ZRCFrames
public import ZRCProtocol

/// What the host shares: implemented over X11 by the executable, by fakes in tests.
public protocol ScreenSource: Sendable {
    /// Captures the shared area now. `hints` are the areas that may have changed since the previous
    /// capture (nil: unknown, compare everything).
    func capture() async throws -> ScreenCapture
    /// Returns when the screen may have changed (true), or after `timeout` at the latest (false).
    func waitForChange(timeout: Duration) async -> Bool
    /// The pointer: its position always, its shape when it has one to report (nil when the source
    /// has no cursor, e.g. a server without XFixes).
    func cursor() async throws -> CursorState?
}

extension ScreenSource {
    public func cursor() async throws -> CursorState? { nil }
}

/// The pointer as the host sees it; `shape.shapeID` changes exactly when the shape does.
public struct CursorState: Sendable, Equatable {
    public var x: Int32
    public var y: Int32
    public var shape: CursorShape

    public init(x: Int32, y: Int32, shape: CursorShape) {
        self.x = x
        self.y = y
        self.shape = shape
    }
}

public struct ScreenCapture: Sendable {
    public var pixels: PixelBuffer
    public var hints: [PixelRect]?
    public var captureMicros: UInt64

    public init(pixels: PixelBuffer, hints: [PixelRect]?, captureMicros: UInt64) {
        self.pixels = pixels
        self.hints = hints
        self.captureMicros = captureMicros
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

    public init(source: any ScreenSource, input: (any InputSink)?, makeEncoder: @escaping @Sendable () throws -> any RegionEncoder,
                stream: FrameStream.Configuration = .init()) {
        self.source = source
        self.input = input
        self.makeEncoder = makeEncoder
        self.stream = stream
    }
}
