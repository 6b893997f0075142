/// Why a CPace run ended without a key. Never says anything about the password.
public struct CPaceError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// A message is not `lv_cat(Y, AD)` with a 32-byte Y and an AD within the limit.
        case malformedMessage
        /// The peer's element does not decode, or the shared element is the identity.
        case invalidElement
        /// An input of ours is outside its limits (a session id or channel id too long).
        case invalidInput
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "CPace: \(message)" }
}
