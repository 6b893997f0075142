public import ZRCProtocol

/// What the user did in the terminal, decoded from its input bytes.
public enum TerminalEvent: Sendable, Equatable {
    /// A key, as an X keysym (printable characters as themselves: the host picks the shift level).
    case key(keysym: UInt32, modifiers: KeyModifiers, action: KeyAction)
    case mouse(MouseReport)
    /// Text pasted with bracketed paste (typed on the host as text, not as keys).
    case paste(String)
    case focus(Bool)
    /// The terminal answered one of the viewer's queries.
    case reply(TerminalReply)
}

/// An answer to a query the viewer sent the terminal (see `TerminalProbe`).
public enum TerminalReply: Sendable, Equatable {
    /// Primary device attributes, `CSI ? Ps ; … c` (DA1); 4 among them means sixel graphics.
    /// Every terminal answers DA1, so it also marks the end of the answers to earlier queries.
    case deviceAttributes([Int])
    /// XTWINOPS 16t: one cell, in pixels.
    case cellPixels(width: Int, height: Int)
    /// XTWINOPS 14t: the text area, in pixels.
    case textAreaPixels(width: Int, height: Int)
    /// DECRPM, `CSI ? mode ; value $ y`: 1 set, 2 reset, 3 permanently set, 4 permanently reset,
    /// 0 not recognised.
    case modeReport(mode: Int, value: Int)
    /// The kitty keyboard protocol's current flags, `CSI ? flags u`.
    case keyboardFlags(Int)
    /// A kitty graphics protocol response, `APC G i=ID ; MESSAGE ST` ("OK" on success).
    case graphics(id: Int, message: String)
    /// XTVERSION, `DCS > | NAME(VERSION) ST`.
    case terminalVersion(String)
}

public enum KeyAction: Sendable, Equatable {
    case press, `repeat`, release
}

/// One SGR (1006/1016) mouse report. Coordinates are 1-based cells, or 1-based pixels when the
/// terminal reports pixels (mode 1016).
public struct MouseReport: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case press(button: Int)
        case release(button: Int)
        /// Motion, with the button held (a drag) or none.
        case move(button: Int?)
        /// Wheel: dy > 0 is down, dx > 0 is right.
        case scroll(dx: Int, dy: Int)
    }

    public var kind: Kind
    public var x: Int
    public var y: Int
    public var modifiers: KeyModifiers

    public init(kind: Kind, x: Int, y: Int, modifiers: KeyModifiers) {
        self.kind = kind
        self.x = x
        self.y = y
        self.modifiers = modifiers
    }
}

/// X keysyms the viewer produces for non-character keys.
public enum TerminalKeysym {
    public static let backSpace: UInt32 = 0xFF08, tab: UInt32 = 0xFF09, returnKey: UInt32 = 0xFF0D, escape: UInt32 = 0xFF1B
    public static let home: UInt32 = 0xFF50, left: UInt32 = 0xFF51, up: UInt32 = 0xFF52, right: UInt32 = 0xFF53, down: UInt32 = 0xFF54
    public static let pageUp: UInt32 = 0xFF55, pageDown: UInt32 = 0xFF56, end: UInt32 = 0xFF57, insert: UInt32 = 0xFF63
    public static let delete: UInt32 = 0xFFFF, isoLeftTab: UInt32 = 0xFE20

    /// F1 … F35.
    public static func function(_ number: Int) -> UInt32 { 0xFFBE + UInt32(number - 1) }

    /// A character's keysym: Latin-1 as itself, other Unicode as 0x01000000 | code point.
    public static func character(_ scalar: Unicode.Scalar) -> UInt32 {
        scalar.value <= 0xFF ? scalar.value : 0x0100_0000 | scalar.value
    }
}
