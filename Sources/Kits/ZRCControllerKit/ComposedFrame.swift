public import ZRCFrames
public import ZRCProtocol

/// The newest composed picture of the remote screen.
public struct ComposedFrame: Sendable {
    public let pixels: PixelBuffer
    public let version: UInt64
    public let frameID: UInt64
    /// Host timestamps of the newest update (host monotonic clock, µs).
    public let captureMicros: UInt64
    public let encodeDoneMicros: UInt64
    public let sendMicros: UInt64
    /// When the newest update arrived here and when it was decoded (this machine's monotonic
    /// clock, µs; the same clock as the host's when both run on one machine).
    public let receivedMicros: UInt64
    public let decodedMicros: UInt64
    /// Areas changed by the newest update.
    public let dirty: [PixelRect]
    /// Areas changed since the version asked for in `pollFrame(newerThan:)` (the whole screen
    /// when that is too old to tell): what a viewer showing that version has to redraw.
    public internal(set) var changedSince: [PixelRect]
    /// The same catch-up as moves to repeat and areas to repaint (`ChangePlan`), for a viewer that
    /// keeps its own copy of the picture and can copy within it (the browser page).
    public internal(set) var plan: ChangePlan
    /// JPEG quality of the newest update: moderate during motion, 92 once still areas were
    /// refined as JPEG, 0 when the update held no JPEG at all (lossless: solid or raw rects).
    public let quality: Int
    /// Which part of the host's screen `pixels` shows, at what size; nil: the whole screen at
    /// full resolution (no `pictureRequest` was made, or the host does not scale).
    public let mapping: PictureMapping?
    /// How many pixels are not exactly the host's (from JPEG, or not drawn yet); nil for a
    /// session that does not track it (`ControllerConfiguration.exactPictures`).
    public let inexactPixels: Int?
    public var isExact: Bool? { inexactPixels.map { $0 == 0 } }

    /// The host's screen size (what pointer coordinates refer to).
    public var screenWidth: Int { mapping.map { Int($0.screenWidth) } ?? pixels.width }
    public var screenHeight: Int { mapping.map { Int($0.screenHeight) } ?? pixels.height }
}

extension ComposedFrame {
    /// A frame with only pixels, version and changed areas (for tests of what consumes frames).
    package init(pixels: PixelBuffer, version: UInt64, changedSince: [PixelRect]) {
        self.init(pixels: pixels, version: version, frameID: version, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0,
                  receivedMicros: 0, decodedMicros: 0, dirty: changedSince, changedSince: changedSince,
                  plan: ChangePlan(repaint: changedSince), quality: 0, mapping: nil,
                  inexactPixels: nil)
    }
}

/// The host's pointer as last reported: its shape (sent once per shape) and position.
public struct RemoteCursor: Sendable, Equatable {
    public var shape: CursorShape?
    public var x: Int32 = 0
    public var y: Int32 = 0
    public var visible = false

    public init() {}
}
