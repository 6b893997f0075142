/// A key combination as people write it on command lines: `ctrl+alt+t`, `Return`, `shift+F5`.
public struct KeyCombo: Sendable, Equatable {
    public var keysym: UInt32
    public var modifiers: KeyModifiers

    public init(keysym: UInt32, modifiers: KeyModifiers) {
        self.keysym = keysym
        self.modifiers = modifiers
    }

    /// Parses `MOD+…+KEY`; modifiers: ctrl/control, alt, shift, super/win/meta; keys: a single
    /// character, or a name (Return, Tab, Escape, BackSpace, Delete, Home, End, PageUp, PageDown,
    /// Insert, Left, Right, Up, Down, Space, F1…F24), case-insensitive.
    public init(parsing text: String) throws(WireError) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        guard let keyPart = parts.last, !keyPart.isEmpty, !parts.dropLast().contains(where: \.isEmpty) else {
            throw WireError(.invalidValue, "`\(text)` is not a key combination (e.g. ctrl+alt+t, Return, shift+F5)")
        }
        var modifiers: KeyModifiers = []
        for part in parts.dropLast() {
            switch part.lowercased() {
            case "ctrl", "control": modifiers.insert(.control)
            case "alt": modifiers.insert(.alt)
            case "shift": modifiers.insert(.shift)
            case "super", "win", "meta": modifiers.insert(.super)
            default: throw WireError(.invalidValue, "`\(part)` in `\(text)` is not a modifier (ctrl, alt, shift, super)")
            }
        }
        guard let keysym = Self.keysym(named: String(keyPart)) else {
            throw WireError(.invalidValue, "`\(keyPart)` in `\(text)` is not a key name (try a character, Return, Tab, Escape, F1…)")
        }
        self.init(keysym: keysym, modifiers: modifiers)
    }

    static let named: [String: UInt32] = [
        "return": 0xFF0D, "enter": 0xFF0D, "tab": 0xFF09, "escape": 0xFF1B, "esc": 0xFF1B, "backspace": 0xFF08,
        "delete": 0xFFFF, "del": 0xFFFF, "home": 0xFF50, "left": 0xFF51, "up": 0xFF52, "right": 0xFF53, "down": 0xFF54,
        "pageup": 0xFF55, "pgup": 0xFF55, "pagedown": 0xFF56, "pgdn": 0xFF56, "end": 0xFF57, "insert": 0xFF63,
        "space": 0x20, "menu": 0xFF67, "print": 0xFF61,
    ]

    /// The keysym of a key name or single character (Latin-1 directly, other Unicode as 0x01000000 | code).
    public static func keysym(named name: String) -> UInt32? {
        let lower = name.lowercased()
        if let value = named[lower] { return value }
        if lower.hasPrefix("f"), let number = Int(lower.dropFirst()), (1...24).contains(number) { return 0xFFBE + UInt32(number - 1) }
        let scalars = Array(name.unicodeScalars)
        guard scalars.count == 1, let scalar = scalars.first, scalar.value >= 0x20, scalar.value != 0x7F else { return nil }
        // Letters are sent lowercase; shift is a modifier of its own.
        let value = scalar.properties.isUppercase ? (scalar.properties.lowercaseMapping.unicodeScalars.first?.value ?? scalar.value) : scalar.value
        return value <= 0xFF ? value : 0x0100_0000 | value
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while result.first?.isWhitespace == true { result = result.dropFirst() }
        while result.last?.isWhitespace == true { result = result.dropLast() }
        return result
    }
}
