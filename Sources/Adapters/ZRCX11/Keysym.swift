/// X keysym values ZRC needs by name, and the mapping between Unicode scalars and keysyms.
public enum Keysym {
    public static let backSpace: UInt32 = 0xFF08
    public static let tab: UInt32 = 0xFF09
    public static let returnKey: UInt32 = 0xFF0D
    public static let shiftLeft: UInt32 = 0xFFE1
    public static let shiftRight: UInt32 = 0xFFE2
    public static let controlLeft: UInt32 = 0xFFE3
    public static let controlRight: UInt32 = 0xFFE4
    public static let altLeft: UInt32 = 0xFFE9
    public static let altRight: UInt32 = 0xFFEA
    public static let superLeft: UInt32 = 0xFFEB
    public static let superRight: UInt32 = 0xFFEC
    /// NoSymbol: an empty slot in the keyboard mapping.
    static let noSymbol: UInt32 = 0

    /// The keysym that types `scalar`: printable Latin-1 keysyms equal their code point, every
    /// other character is `0x01000000 | code point` (the X11 rule for Unicode keysyms, so no
    /// keysym table is needed). Newline and tab become Return and Tab. Nil for other control
    /// characters, which have no key.
    public static func forCharacter(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x0A, 0x0D: returnKey
        case 0x09: tab
        case 0x20...0x7E, 0xA0...0xFF: scalar.value
        case 0x00...0x1F, 0x7F...0x9F: nil
        default: 0x0100_0000 | scalar.value
        }
    }

    /// The Unicode scalar a character keysym stands for (the inverse of `forCharacter`), nil for
    /// function keys and legacy non-Latin-1 keysyms.
    public static func character(of keysym: UInt32) -> Unicode.Scalar? {
        switch keysym {
        case 0x20...0x7E, 0xA0...0xFF: Unicode.Scalar(keysym)
        case 0x0100_0100...0x0110_FFFF: Unicode.Scalar(keysym & 0x00FF_FFFF)
        default: nil
        }
    }

    /// The other spelling of the same character, so a map that lists `é` as 0xE9 also matches a
    /// request for 0x10000E9 and the other way round.
    static func alternative(of keysym: UInt32) -> UInt32? {
        switch keysym {
        case 0x0100_0020...0x0100_007E, 0x0100_00A0...0x0100_00FF: keysym & 0xFF
        case 0x20...0x7E, 0xA0...0xFF: 0x0100_0000 | keysym
        default: nil
        }
    }
}
