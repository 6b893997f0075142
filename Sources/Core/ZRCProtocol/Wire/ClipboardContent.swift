/// Which X selection a clipboard message is about.
public enum ClipboardSelection: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// What Ctrl+C / Ctrl+V use (`CLIPBOARD`).
    case clipboard = 0
    /// The text last selected with the mouse, pasted with the middle button (`PRIMARY`).
    case primary = 1

    public var description: String {
        switch self {
        case .clipboard: "clipboard"
        case .primary: "primary"
        }
    }
}

/// The content of a selection, either way (`clipboard`, message 0x40).
///
/// Wire layout: selection u8, mimeType short string (u8 length + UTF-8), data u32 length + bytes,
/// at most `WireLimits.maxClipboardBytes`. Text travels as `text/plain;charset=utf-8`; whether
/// the data really is UTF-8 is the receiver's check (it refuses the content with a
/// `clipboardRefused` notice and the session goes on), not a protocol error.
public struct ClipboardContent: Sendable, Equatable {
    public static let utf8Text = "text/plain;charset=utf-8"

    public var selection: ClipboardSelection
    public var mimeType: String
    public var data: [UInt8]

    public init(selection: ClipboardSelection, mimeType: String, data: [UInt8]) {
        self.selection = selection
        self.mimeType = mimeType
        self.data = data
    }

    /// UTF-8 text for `selection`.
    public static func text(_ text: String, selection: ClipboardSelection = .clipboard) -> ClipboardContent {
        ClipboardContent(selection: selection, mimeType: utf8Text, data: Array(text.utf8))
    }

    public var isText: Bool { mimeType == Self.utf8Text }

    /// The text, when this is UTF-8 text and valid UTF-8; nil otherwise.
    public var text: String? {
        guard isText else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    func problem() -> String? {
        if data.count > WireLimits.maxClipboardBytes {
            return "\(data.count) bytes of clipboard data, limit is \(WireLimits.maxClipboardBytes)"
        }
        if mimeType.utf8.count > Int(UInt8.max) { return "a mime type longer than 255 bytes" }
        return nil
    }

    func write(to writer: inout ByteWriter) {
        writer.write(selection.rawValue)
        writer.write(shortString: mimeType)
        writer.write(blob: data)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        selection = try Self.readSelection(from: &reader)
        mimeType = try reader.readShortString("mimeType")
        data = try reader.readBlob("data", maxLength: WireLimits.maxClipboardBytes)
    }

    static func readSelection(from reader: inout ByteReader) throws(WireError) -> ClipboardSelection {
        let raw = try reader.readUInt8("selection")
        guard let selection = ClipboardSelection(rawValue: raw) else { throw reader.invalid("selection", "is \(raw), must be 0 or 1") }
        return selection
    }
}
