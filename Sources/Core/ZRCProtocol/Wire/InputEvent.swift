/// Pointer and keyboard input from the controller, in remote screen pixels and X keysyms.
///
/// Wire layout (inside an `input` message): u8 event type, then the event's fields.
public enum InputEvent: Sendable, Equatable {
    /// 0x01. Absolute pointer position; the host clamps it to the screen.
    case pointerMove(x: Int32, y: Int32)
    /// 0x02. X button number 1…9 (1 left, 2 middle, 3 right, 4/5 wheel up/down, 6/7 wheel left/right,
    /// 8/9 back/forward — sent only to a host that announced `extendedButtons`),
    /// with the pointer position at the time of the press, so a click lands where it was aimed even
    /// if a move was coalesced away.
    case button(UInt8, pressed: Bool, x: Int32, y: Int32)
    /// 0x03. Wheel steps (detents): positive dy scrolls down, positive dx scrolls right.
    case scroll(dx: Int16, dy: Int16, x: Int32, y: Int32)
    /// 0x04. An X keysym (e.g. 0xff0d Return) pressed or released, with the modifier state.
    case key(keysym: UInt32, pressed: Bool, modifiers: KeyModifiers)
    /// 0x05. Text to type as-is (paste, input methods); at most 4096 UTF-8 bytes per event — use
    /// `textEvents(for:)` to split longer text.
    case text(String)

    public static let buttonRange: ClosedRange<UInt8> = 1...9
    /// The buttons every host takes; 8 and 9 need `Capabilities.extendedButtons`.
    public static let basicButtons: ClosedRange<UInt8> = 1...7

    /// Splits `text` into events of at most 4096 UTF-8 bytes at character boundaries, since the
    /// encoder would otherwise cut a longer string.
    public static func textEvents(for text: String) -> [InputEvent] {
        var events: [InputEvent] = []
        var current = ""
        var currentBytes = 0
        for character in text {
            let bytes = character.utf8.count
            if currentBytes + bytes > WireLimits.maxStringBytes, !current.isEmpty {
                events.append(.text(current))
                current = ""
                currentBytes = 0
            }
            current.append(character)
            currentBytes += bytes
        }
        if !current.isEmpty { events.append(.text(current)) }
        return events
    }

    func write(to writer: inout ByteWriter) {
        switch self {
        case .pointerMove(let x, let y):
            writer.write(UInt8(0x01)); writer.write(x); writer.write(y)
        case .button(let button, let pressed, let x, let y):
            writer.write(UInt8(0x02)); writer.write(button); writer.write(pressed); writer.write(x); writer.write(y)
        case .scroll(let dx, let dy, let x, let y):
            writer.write(UInt8(0x03)); writer.write(dx); writer.write(dy); writer.write(x); writer.write(y)
        case .key(let keysym, let pressed, let modifiers):
            writer.write(UInt8(0x04)); writer.write(keysym); writer.write(pressed); writer.write(modifiers.rawValue)
        case .text(let text):
            writer.write(UInt8(0x05)); writer.write(string: text)
        }
    }

    init(from reader: inout ByteReader) throws(WireError) {
        let type = try reader.readUInt8("event type")
        switch type {
        case 0x01:
            self = .pointerMove(x: try reader.readInt32("x"), y: try reader.readInt32("y"))
        case 0x02:
            let button = try reader.readUInt8("button")
            guard Self.buttonRange.contains(button) else { throw reader.invalid("button", "is \(button), must be 1…9") }
            self = .button(button, pressed: try reader.readBool("pressed"), x: try reader.readInt32("x"), y: try reader.readInt32("y"))
        case 0x03:
            self = .scroll(
                dx: try reader.readInt16("dx"), dy: try reader.readInt16("dy"),
                x: try reader.readInt32("x"), y: try reader.readInt32("y"))
        case 0x04:
            self = .key(
                keysym: try reader.readUInt32("keysym"), pressed: try reader.readBool("pressed"),
                modifiers: KeyModifiers(rawValue: try reader.readUInt16("modifiers")))
        case 0x05:
            self = .text(try reader.readString("text"))
        default:
            throw WireError(.unknownMessageType, "\(reader.context): input event type 0x\(String(type, radix: 16)) is unknown")
        }
    }

    /// Why this event is invalid, or nil when it is fine.
    func problem() -> String? {
        switch self {
        case .button(let button, _, _, _) where !Self.buttonRange.contains(button):
            "button is \(button), must be 1…9"
        case .pointerMove, .button, .scroll, .key, .text:
            nil
        }
    }
}
