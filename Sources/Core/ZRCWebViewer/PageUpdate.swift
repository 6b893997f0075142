import ZRCFrames
public import ZRCProtocol

/// What `zrc-ctl` sends the page: one binary WebSocket message each, a type byte then big-endian
/// fields (`Schemas/web-viewer-protocol.md`; `page/wire.js` reads them).
public enum PageUpdate: Sendable {
    /// First message on a socket: what the session allows.
    case hello(PageHello)
    /// Rectangles of the picture that changed since the version the page has.
    case frame(PageFrame)
    /// The host's pointer shape, straight RGBA (nil: no shape, the page shows its own arrow).
    case cursor(CursorShape?)
    /// Whether the host shows its pointer at all.
    case cursorVisible(Bool)
    /// The status bar's model, as JSON (every peer text in it sanitized).
    case status([UInt8])
    /// Text from the host's clipboard that the policy lets through.
    case clipboard(String)
    /// The viewer stopped talking to this page: it ended, or another tab took over.
    case end(PageEnd, reason: String)
    /// The host's monitors (in screen pixels), for showing one of them.
    case monitors([MonitorArea])
    /// A file event, as JSON (terms, listing, ticket, exists, progress, done, failed; every
    /// peer text in it sanitized, names that are not valid shown escaped).
    case files([UInt8])

    enum Kind: UInt8 {
        case hello = 0x01, frame = 0x02, cursor = 0x03, cursorVisible = 0x04, status = 0x05, clipboard = 0x06, end = 0x07, monitors = 0x08, files = 0x09
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .hello(let hello):
            writer.write(Kind.hello.rawValue)
            writer.write(UInt8(1))  // the page protocol's version
            writer.write(hello.flags)
            writer.write(string: TerminalSafeText.sanitized(hello.hostLabel), maxLength: 256)
        case .frame(let frame):
            return frame.encoded
        case .cursor(let shape):
            writer.write(Kind.cursor.rawValue)
            guard let shape else {
                writer.write(UInt32(0))
                writer.write(UInt32(0))
                return writer.bytes
            }
            writer.write(shape.hotX)
            writer.write(shape.hotY)
            writer.write(shape.width)
            writer.write(shape.height)
            writer.write(bytes: shape.rgba)
        case .cursorVisible(let visible):
            writer.write(Kind.cursorVisible.rawValue)
            writer.write(visible)
        case .status(let json):
            writer.write(Kind.status.rawValue)
            writer.write(bytes: json)
        case .files(let json):
            writer.write(Kind.files.rawValue)
            writer.write(bytes: json)
        case .clipboard(let text):
            writer.write(Kind.clipboard.rawValue)
            writer.write(bytes: text.utf8)
        case .monitors(let list):
            writer.write(Kind.monitors.rawValue)
            writer.write(UInt8(min(list.count, MonitorArea.maximumCount)))
            for monitor in list.prefix(MonitorArea.maximumCount) {
                for value in [monitor.x, monitor.y, monitor.width, monitor.height] { writer.write(value) }
                writer.write(UInt8(monitor.isPrimary ? 1 : 0))
                writer.write(string: TerminalSafeText.sanitized(monitor.name), maxLength: 255)
            }
        case .end(let end, let reason):
            writer.write(Kind.end.rawValue)
            writer.write(end.rawValue)
            writer.write(bytes: ByteWriter.utf8Prefix(of: TerminalSafeText.sanitized(reason), maxBytes: 1024))
        }
        return writer.bytes
    }
}

public struct PageHello: Sendable, Equatable {
    public var viewOnly: Bool
    /// The host's clipboard may reach the page (the policy allows at least asking).
    public var clipboard: Bool
    public var hostLabel: String

    public init(viewOnly: Bool, clipboard: Bool, hostLabel: String) {
        self.viewOnly = viewOnly
        self.clipboard = clipboard
        self.hostLabel = hostLabel
    }

    var flags: UInt8 { (viewOnly ? 1 : 0) | (clipboard ? 2 : 0) }
}

public enum PageEnd: UInt8, Sendable {
    /// The session ended for good (the reason says why).
    case ended = 0
    /// Another tab opened the viewer and has it now.
    case takenOver = 1
}
