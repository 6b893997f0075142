/// Code of a non-fatal `error` message (u16). A struct rather than an enum so codes added by newer
/// peers arrive intact and can still be shown with their text.
public struct NoticeCode: RawRepresentable, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Input was ignored because the session is view-only.
    public static let inputRefused = NoticeCode(rawValue: 1)
    /// The peer received a message type it understands but does not support in this session.
    public static let unsupported = NoticeCode(rawValue: 2)
    /// A request was dropped because the peer is overloaded (e.g. input arriving too fast).
    public static let overloaded = NoticeCode(rawValue: 3)
    /// Typed text contained characters the host cannot produce with its keyboard mapping.
    public static let untypeable = NoticeCode(rawValue: 4)
    /// A `clipboardRequest` has no answer: nothing to send (no owner, no text, too large) or the
    /// session may not read the clipboard. The text says which.
    public static let clipboardUnavailable = NoticeCode(rawValue: 5)
    /// Clipboard content from the controller was not applied: not UTF-8 text, the session may not
    /// write the clipboard, or the host's X server refused it. The text says which.
    public static let clipboardRefused = NoticeCode(rawValue: 6)
    /// The host asks the person at it to accept this session; frames and input wait until then.
    /// The session closes (`policyRefused`) when refused or not accepted in time.
    public static let awaitingApproval = NoticeCode(rawValue: 7)
}
