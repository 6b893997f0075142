/// Modifier keys to hold around one key event, as a remote peer sends them.
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1 << 0)
    public static let control = KeyModifiers(rawValue: 1 << 1)
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    public static let `super` = KeyModifiers(rawValue: 1 << 3)

    /// Each modifier with the left-hand key that produces it (the keysym XTest presses), in the
    /// order they are pressed.
    static let keys: [(modifier: KeyModifiers, keysym: UInt32)] = [
        (.shift, Keysym.shiftLeft), (.control, Keysym.controlLeft), (.alt, Keysym.altLeft), (.super, Keysym.superLeft),
    ]
}
