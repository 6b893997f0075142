/// Modifier state attached to a key event (u16 bitset): what the controller believes is held when
/// the key changes, so the host can notice and release a modifier that got stuck. Unknown bits are
/// kept as received.
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1 << 0)
    public static let control = KeyModifiers(rawValue: 1 << 1)
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    public static let `super` = KeyModifiers(rawValue: 1 << 3)
    /// ISO level 3 shift (AltGr).
    public static let altGr = KeyModifiers(rawValue: 1 << 4)
    public static let capsLock = KeyModifiers(rawValue: 1 << 5)
    public static let numLock = KeyModifiers(rawValue: 1 << 6)
}
