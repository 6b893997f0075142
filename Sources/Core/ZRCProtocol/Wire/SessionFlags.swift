/// Session properties the controller requests (handshake message 1) and the host grants
/// (message 2), as a u32 bitset. The host grants a subset of what was asked, possibly adding
/// restrictions such as `viewOnly`; bits neither side knows are kept as received.
public struct SessionFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Watch only: the host ignores input and answers it with an `inputRefused` notice.
    public static let viewOnly = SessionFlags(rawValue: 1 << 0)
}
