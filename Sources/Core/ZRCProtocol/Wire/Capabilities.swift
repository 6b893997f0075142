/// What a peer can do, announced in `hello` (u32 bitset). Bits this version does not name are kept
/// as received, so a newer peer's announcement survives being logged or echoed.
public struct Capabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Sends (host) or decodes (controller) JPEG rectangles.
    public static let jpegRects = Capabilities(rawValue: 1 << 0)
    /// Sends or draws solid-colour rectangles.
    public static let solidRects = Capabilities(rawValue: 1 << 1)
    /// Sends or draws raw BGRX rectangles.
    public static let rawRects = Capabilities(rawValue: 1 << 2)
    /// Host: sends cursor shape and position separately. Controller: draws the cursor itself.
    public static let cursorShape = Capabilities(rawValue: 1 << 3)
    /// Host: can type arbitrary Unicode text (`InputEvent.text`). Controller: may send it.
    public static let textInput = Capabilities(rawValue: 1 << 4)
    /// Sends or draws lossless rectangles (a palette or true colour, through the session's zstd stream).
    public static let losslessRects = Capabilities(rawValue: 1 << 5)
    /// Sends or draws copy rectangles: an area moved within the screen (scrolling, moved windows).
    public static let copyRects = Capabilities(rawValue: 1 << 6)

    /// Controller: sends `pictureRequest` and follows `pictureMapping`. Host: scales to the
    /// requested picture.
    public static let scaledPictures = Capabilities(rawValue: 1 << 7)

    /// Host: sends `linkStats`. Controller: shows them.
    public static let linkStats = Capabilities(rawValue: 1 << 8)

    /// Sends or draws lossless rects as complete zstd frames of their own (encoding 6), beside the
    /// session's stream: how the host encodes an update once for several viewers.
    public static let losslessFrames = Capabilities(rawValue: 1 << 9)

    /// Host: shares its clipboard (`clipboard`, `clipboardRequest`; whether a given session may
    /// is still its own rule, see the README). Controller: wants the host's clipboard changes.
    public static let clipboard = Capabilities(rawValue: 1 << 10)
    /// Host: injects X buttons 8 and 9 (back, forward); controller: may send them. A controller
    /// never sends them to a host that did not announce this (older hosts refuse them).
    public static let extendedButtons = Capabilities(rawValue: 1 << 11)
    /// Host: sends `monitorLayout`; controller: takes it (and may ask for one monitor's region).
    public static let monitors = Capabilities(rawValue: 1 << 12)
    /// Host: sends frame updates as `compactFrame` (varint geometry, time deltas, the frame ID and
    /// screen size implied by the previous update); controller: takes them.
    public static let compactFrames = Capabilities(rawValue: 1 << 13)
    /// Sends or draws lossless restarts (encoding 7): the first chunk of a new lossless stream,
    /// which replaces the session's. With it, the host gives sessions whose viewers hold the same
    /// picture one stream between them and sends every one the same chunks (a session joining
    /// such a group gets a restart first), instead of frames of their own (`losslessFrames`).
    public static let sharedLosslessStream = Capabilities(rawValue: 1 << 14)
    /// Host: serves files (`fileTerms` after its hello says what this session may do).
    /// Controller: may list, upload and download (messages 0x50…0x59).
    public static let fileTransfer = Capabilities(rawValue: 1 << 15)

    /// Every rect encoding this version knows.
    public static let rectEncodings: Capabilities = [.jpegRects, .solidRects, .rawRects, .losslessRects, .copyRects, .losslessFrames,
                                                     .sharedLosslessStream]
    /// The encodings that can carry any picture on their own (a stream needs at least one).
    public static let pictureEncodings: Capabilities = [.jpegRects, .rawRects, .losslessRects]
}
