/// The first byte of every transport plaintext. Bits other than these two are reserved and must be
/// zero: a receiver that ignored them could misread a future layout as this one.
struct FragmentFlags: OptionSet, Sendable {
    let rawValue: UInt8

    /// This fragment starts a message; a u32 total message length follows the flags.
    static let first = FragmentFlags(rawValue: 0x01)
    /// This fragment completes the message.
    static let last = FragmentFlags(rawValue: 0x02)

    static let known: FragmentFlags = [.first, .last]

    /// Flags byte + u32 total length: the overhead of a FIRST fragment.
    static let firstHeaderLength = 5
}
