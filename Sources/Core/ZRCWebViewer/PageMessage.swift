public import ZRCProtocol

/// What the page sends `zrc-ctl` over the local WebSocket: one binary message each, a type byte
/// then big-endian fields (`Schemas/web-viewer-protocol.md`). The page is local but not trusted
/// more than any browser tab: every length is checked before it costs memory.
public enum PageMessage: Sendable, Equatable {
    /// The picture the page wants: `region` of the remote screen at `width`×`height` pixels (the
    /// canvas's device pixels at fit, or the region's own size at 1:1).
    case view(width: UInt16, height: UInt16, regionX: UInt16, regionY: UInt16, regionWidth: UInt16, regionHeight: UInt16)
    /// The page has painted this frame version (acknowledgements to the host follow these).
    case drawn(version: UInt32)
    /// A pointer at remote pixel (`x`, `y`): moved, or `button` (1–9) pressed or released.
    case pointer(action: PointerAction, button: UInt8, x: UInt16, y: UInt16)
    /// Wheel clicks (X buttons 4–7) at (`x`, `y`); positive `dy` is down, positive `dx` right.
    case wheel(dx: Int16, dy: Int16, x: UInt16, y: UInt16)
    /// A key as the browser reported it: `key` (what the layout produced, or a key name) and
    /// `code` (the physical key), with the modifiers held.
    case key(pressed: Bool, key: String, code: String, modifiers: KeyModifiers)
    /// Text from an input method (`compositionend`), typed as Unicode.
    case text(String)
    /// The page's clipboard, pasted: becomes the host's clipboard.
    case clipboard(String)
    case command(PageCommand)
    /// File work the page asks for (`tag`: the page's number for the request, echoed in its events).
    case files(PageFileRequest)

    public enum PointerAction: UInt8, Sendable, Equatable {
        case move = 0
        case press = 1
        case release = 2
    }

    /// Type bytes (0x80 and up: page to `zrc-ctl`).
    enum Kind: UInt8 {
        case view = 0x81, drawn = 0x82, pointer = 0x83, wheel = 0x84, key = 0x85, text = 0x86, clipboard = 0x87, command = 0x88
        case fileList = 0x89, fileUpload = 0x8A, fileDownload = 0x8B, fileCancel = 0x8C
    }

    /// The largest message a page may send: a 1 MiB clipboard paste and its header.
    public static let maximumBytes = WireLimits.maxClipboardBytes + 16
    /// A key's name or code (the longest DOM key names are about 25 bytes; one character is at most 4).
    public static let maximumKeyBytes = 64
    /// Text from one composition.
    public static let maximumTextBytes = 16 * 1024

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> PageMessage {
        guard bytes.count <= maximumBytes else {
            throw WireError(.lengthTooLarge, "page message: \(bytes.count) bytes, limit is \(maximumBytes)")
        }
        var reader = ByteReader(bytes, context: "page message")
        let type = try reader.readUInt8("type")
        guard let kind = Kind(rawValue: type) else {
            throw reader.invalid("type", "unknown page message type \(type)")
        }
        let message: PageMessage
        switch kind {
        case .view:
            message = .view(width: try reader.readUInt16("width"), height: try reader.readUInt16("height"),
                            regionX: try reader.readUInt16("region x"), regionY: try reader.readUInt16("region y"),
                            regionWidth: try reader.readUInt16("region width"), regionHeight: try reader.readUInt16("region height"))
        case .drawn:
            message = .drawn(version: try reader.readUInt32("version"))
        case .pointer:
            let raw = try reader.readUInt8("action")
            guard let action = PointerAction(rawValue: raw) else { throw reader.invalid("action", "unknown pointer action \(raw)") }
            let button = try reader.readUInt8("button")
            guard action == .move || (1...9).contains(button) else { throw reader.invalid("button", "button \(button) is not 1–9") }
            message = .pointer(action: action, button: button, x: try reader.readUInt16("x"), y: try reader.readUInt16("y"))
        case .wheel:
            message = .wheel(dx: try reader.readInt16("dx"), dy: try reader.readInt16("dy"), x: try reader.readUInt16("x"), y: try reader.readUInt16("y"))
        case .key:
            let pressed = try reader.readBool("pressed")
            let modifiers = KeyModifiers(rawValue: try reader.readUInt16("modifiers"))
            let key = try reader.readString("key", maxLength: maximumKeyBytes)
            let code = try reader.readString("code", maxLength: maximumKeyBytes)
            message = .key(pressed: pressed, key: key, code: code, modifiers: modifiers)
        case .text:
            message = .text(try Self.utf8(reader.readSlice(count: reader.remainingCount, "text"), limit: maximumTextBytes, field: "text"))
        case .clipboard:
            message = .clipboard(try Self.utf8(reader.readSlice(count: reader.remainingCount, "clipboard"),
                                               limit: WireLimits.maxClipboardBytes, field: "clipboard"))
        case .command:
            let raw = try reader.readUInt8("command")
            guard let command = PageCommand(rawValue: raw) else { throw reader.invalid("command", "unknown command \(raw)") }
            message = .command(command)
        case .fileList:
            message = .files(.list(tag: try reader.readUInt32("tag"), path: try reader.readString("path", maxLength: FileTransferLimits.maxPathBytes)))
        case .fileUpload:
            let tag = try reader.readUInt32("tag")
            let replace = try reader.readBool("replace")
            let size = try reader.readUInt64("size")
            let modified = try reader.read(Int64.self, "modified")
            message = .files(.upload(tag: tag, replace: replace, size: size, modifiedMillis: modified,
                                     path: try reader.readString("path", maxLength: FileTransferLimits.maxPathBytes)))
        case .fileDownload:
            message = .files(.download(tag: try reader.readUInt32("tag"), path: try reader.readString("path", maxLength: FileTransferLimits.maxPathBytes)))
        case .fileCancel:
            message = .files(.cancel(tag: try reader.readUInt32("tag")))
        }
        try reader.expectEnd()
        return message
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>, limit: Int, field: String) throws(WireError) -> String {
        guard bytes.count <= limit else { throw WireError(.lengthTooLarge, "page message: \(field) is \(bytes.count) bytes, limit is \(limit)") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw WireError(.invalidUTF8, "page message: \(field) is not UTF-8") }
        return text
    }

    /// The page's encoding of this message (what the JavaScript writes; the tests' reference).
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .view(let width, let height, let x, let y, let regionWidth, let regionHeight):
            writer.write(Kind.view.rawValue)
            for value in [width, height, x, y, regionWidth, regionHeight] { writer.write(value) }
        case .drawn(let version):
            writer.write(Kind.drawn.rawValue)
            writer.write(version)
        case .pointer(let action, let button, let x, let y):
            writer.write(Kind.pointer.rawValue)
            writer.write(action.rawValue)
            writer.write(button)
            writer.write(x)
            writer.write(y)
        case .wheel(let dx, let dy, let x, let y):
            writer.write(Kind.wheel.rawValue)
            writer.write(dx)
            writer.write(dy)
            writer.write(x)
            writer.write(y)
        case .key(let pressed, let key, let code, let modifiers):
            writer.write(Kind.key.rawValue)
            writer.write(pressed)
            writer.write(modifiers.rawValue)
            writer.write(string: key, maxLength: Self.maximumKeyBytes)
            writer.write(string: code, maxLength: Self.maximumKeyBytes)
        case .text(let text):
            writer.write(Kind.text.rawValue)
            writer.write(bytes: text.utf8)
        case .clipboard(let text):
            writer.write(Kind.clipboard.rawValue)
            writer.write(bytes: text.utf8)
        case .command(let command):
            writer.write(Kind.command.rawValue)
            writer.write(command.rawValue)
        case .files(let request):
            request.write(to: &writer)
        }
        return writer.bytes
    }
}

/// The page's buttons and menu entries that are not input.
public enum PageCommand: UInt8, Sendable, Equatable, CaseIterable {
    /// End the viewer (the page's Disconnect).
    case disconnect = 1
    /// Press and release Ctrl+Alt+Delete on the host.
    case ctrlAltDelete = 2
    /// Take the host's clipboard once (the viewer's Ctrl+] c).
    case takeHostClipboard = 3
    /// Release every key and button the page holds (it lost focus).
    case releaseAll = 4
}

/// The page's file requests (the browser viewer's file panel and drops). Paths are the user's
/// text, checked by the viewer (`RemotePath`) before anything reaches the host.
public enum PageFileRequest: Sendable, Equatable {
    /// List the directory at `path` beneath the host's transfer root.
    case list(tag: UInt32, path: String)
    /// Prepare an upload of `size` bytes to `path` (relative to the host's upload directory);
    /// answered with a ticket for `POST /files/upload/TICKET`, or `exists` (unless `replace`).
    case upload(tag: UInt32, replace: Bool, size: UInt64, modifiedMillis: Int64, path: String)
    /// Prepare a download of `path` (beneath the root); answered with a ticket for
    /// `GET /files/download/TICKET`, which the page hands to the browser's own download.
    case download(tag: UInt32, path: String)
    /// Stop request `tag` (its upload or download ends; the host hears `cancelled`).
    case cancel(tag: UInt32)

    func write(to writer: inout ByteWriter) {
        switch self {
        case .list(let tag, let path):
            writer.write(PageMessage.Kind.fileList.rawValue)
            writer.write(tag)
            writer.write(string: path, maxLength: FileTransferLimits.maxPathBytes)
        case .upload(let tag, let replace, let size, let modified, let path):
            writer.write(PageMessage.Kind.fileUpload.rawValue)
            writer.write(tag)
            writer.write(replace)
            writer.write(size)
            writer.write(modified)
            writer.write(string: path, maxLength: FileTransferLimits.maxPathBytes)
        case .download(let tag, let path):
            writer.write(PageMessage.Kind.fileDownload.rawValue)
            writer.write(tag)
            writer.write(string: path, maxLength: FileTransferLimits.maxPathBytes)
        case .cancel(let tag):
            writer.write(PageMessage.Kind.fileCancel.rawValue)
            writer.write(tag)
        }
    }
}
