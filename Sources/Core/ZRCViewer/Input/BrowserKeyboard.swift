public import ZRCProtocol

/// Turns a browser's key events into X key events, any layout: the keysym comes from
/// `KeyboardEvent.key` (what the user's layout produced: AZERTY's "a", AltGr's "€", a dead key's
/// composed "é") and, for keys without a character (arrows, F-keys, modifiers), from its name or
/// `KeyboardEvent.code`.
///
/// A release sends the keysym its press sent, found by the physical key: Shift+A pressed gives
/// "A", but Shift may be let go first and the release then says "a"; releasing "a" would leave
/// "A" held on the host. Keys still down when the page loses focus are released by `releaseAll`.
public struct BrowserKeyboard: Sendable {
    /// Keys held, by `code` (or by `key` when the browser gives no code), with the keysym sent.
    private var held: [String: UInt32] = [:]
    /// At most this many keys held at once (a page cannot grow the table without bound).
    public static let maximumHeld = 32

    public init() {}

    public var heldKeysyms: [UInt32] { held.values.sorted() }

    /// The X key events for one browser key event (none for keys that have no X meaning here:
    /// a dead key, which produces its character with the next key, or an IME's "Process").
    public mutating func translate(pressed: Bool, key: String, code: String, modifiers: KeyModifiers) -> [InputEvent] {
        let slot = code.isEmpty ? key : code
        if !pressed {
            guard let keysym = held.removeValue(forKey: slot) else { return [] }
            return [.key(keysym: keysym, pressed: false, modifiers: modifiers)]
        }
        guard let keysym = Self.keysym(key: key, code: code) else { return [] }
        var events: [InputEvent] = []
        if let previous = held[slot], previous != keysym {
            // Auto-repeat under a changed shift state: let the old one go first.
            events.append(.key(keysym: previous, pressed: false, modifiers: modifiers))
        } else if held[slot] == nil, held.count >= Self.maximumHeld {
            return []
        }
        held[slot] = keysym
        events.append(.key(keysym: keysym, pressed: true, modifiers: modifiers))
        return events
    }

    /// Releases every key still held (focus lost, page closed, session paused).
    public mutating func releaseAll() -> [InputEvent] {
        defer { held = [:] }
        return held.values.sorted().map { .key(keysym: $0, pressed: false, modifiers: []) }
    }

    /// The keysym for a key event; nil when it has none.
    public static func keysym(key: String, code: String) -> UInt32? {
        let scalars = key.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first, scalar.value >= 0x20, scalar.value != 0x7F {
            // Keypad digits and operators keep their keypad keysyms, so applications that tell
            // them apart (and NumLock-off navigation) behave as on the host's own keyboard.
            if code.hasPrefix("Numpad"), let keypad = keypadKeysyms[code] { return keypad }
            return TerminalKeysym.character(scalar)
        }
        if key == "Enter", code == "NumpadEnter" { return keypadKeysyms[code] }
        if let named = namedKeysyms[key] {
            // Left and right modifiers are told apart by the code.
            return codeKeysyms[code].flatMap { sided in modifierNames.contains(key) ? sided : nil } ?? named
        }
        if key == "Dead" || key == "Process" || key == "Compose" { return nil }
        // "Unidentified" and other names: the physical key's usual keysym, if it has one.
        return codeKeysyms[code]
    }

    private static let modifierNames: Set<String> = ["Shift", "Control", "Alt", "Meta", "OS", "Super", "Hyper"]

    /// DOM key names (UI Events KeyboardEvent key values) to keysyms.
    static let namedKeysyms: [String: UInt32] = {
        var table: [String: UInt32] = [
            "Backspace": 0xFF08, "Tab": 0xFF09, "Enter": 0xFF0D, "Escape": 0xFF1B, "Delete": 0xFFFF,
            "Home": 0xFF50, "ArrowLeft": 0xFF51, "ArrowUp": 0xFF52, "ArrowRight": 0xFF53, "ArrowDown": 0xFF54,
            "PageUp": 0xFF55, "PageDown": 0xFF56, "End": 0xFF57, "Insert": 0xFF63, "Clear": 0xFF0B,
            "Pause": 0xFF13, "ScrollLock": 0xFF14, "PrintScreen": 0xFF61, "ContextMenu": 0xFF67, "Help": 0xFF6A,
            "Shift": 0xFFE1, "Control": 0xFFE3, "CapsLock": 0xFFE5, "Alt": 0xFFE9, "Meta": 0xFFEB, "OS": 0xFFEB,
            "Super": 0xFFEB, "Hyper": 0xFFED, "AltGraph": 0xFE03, "NumLock": 0xFF7F,
            "Cancel": 0xFF69, "Execute": 0xFF62, "Find": 0xFF68, "Select": 0xFF60, "Undo": 0xFF65, "Redo": 0xFF66,
            "AudioVolumeMute": 0x1008FF12, "AudioVolumeDown": 0x1008FF11, "AudioVolumeUp": 0x1008FF13,
            "MediaPlayPause": 0x1008FF14, "MediaStop": 0x1008FF15, "MediaTrackPrevious": 0x1008FF16, "MediaTrackNext": 0x1008FF17,
        ]
        for number in 1...24 { table["F\(number)"] = TerminalKeysym.function(number) }
        return table
    }()

    /// Physical keys (UI Events code values) to keysyms: sided modifiers, the keypad, and the
    /// unshifted US meaning of each key for events whose `key` says nothing.
    static let codeKeysyms: [String: UInt32] = {
        var table: [String: UInt32] = [
            "ShiftLeft": 0xFFE1, "ShiftRight": 0xFFE2, "ControlLeft": 0xFFE3, "ControlRight": 0xFFE4,
            "AltLeft": 0xFFE9, "AltRight": 0xFFEA, "MetaLeft": 0xFFEB, "MetaRight": 0xFFEC, "OSLeft": 0xFFEB, "OSRight": 0xFFEC,
            "CapsLock": 0xFFE5, "NumLock": 0xFF7F, "Enter": 0xFF0D, "Tab": 0xFF09, "Backspace": 0xFF08, "Escape": 0xFF1B,
            "Space": 0x20, "Minus": 0x2D, "Equal": 0x3D, "BracketLeft": 0x5B, "BracketRight": 0x5D, "Backslash": 0x5C,
            "Semicolon": 0x3B, "Quote": 0x27, "Backquote": 0x60, "Comma": 0x2C, "Period": 0x2E, "Slash": 0x2F,
            "IntlBackslash": 0x3C, "ArrowLeft": 0xFF51, "ArrowUp": 0xFF52, "ArrowRight": 0xFF53, "ArrowDown": 0xFF54,
            "Home": 0xFF50, "End": 0xFF57, "PageUp": 0xFF55, "PageDown": 0xFF56, "Insert": 0xFF63, "Delete": 0xFFFF,
        ]
        for letter in UInt32(0x61)...0x7A { table["Key\(Character(Unicode.Scalar(letter - 0x20)!))"] = letter }
        for digit in UInt32(0)...9 { table["Digit\(digit)"] = 0x30 + digit }
        for (code, keysym) in keypadKeysyms { table[code] = keysym }
        for number in 1...24 { table["F\(number)"] = TerminalKeysym.function(number) }
        return table
    }()

    /// The keypad's keysyms (KP_0 … KP_9 and its operators).
    static let keypadKeysyms: [String: UInt32] = {
        var table: [String: UInt32] = [
            "NumpadEnter": 0xFF8D, "NumpadMultiply": 0xFFAA, "NumpadAdd": 0xFFAB, "NumpadSubtract": 0xFFAD,
            "NumpadDecimal": 0xFFAE, "NumpadDivide": 0xFFAF, "NumpadEqual": 0xFFBD, "NumpadComma": 0xFFAC,
        ]
        for digit in UInt32(0)...9 { table["Numpad\(digit)"] = 0xFFB0 + digit }
        return table
    }()
}
