/// The one error type of ZRCKeyStore: a kind to switch on and a message a person can act on.
///
/// Messages name what failed and how to fix it. They never contain key material.
public struct KeyStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No D-Bus session bus, or no Secret Service (`org.freedesktop.secrets`) on it.
        case serviceUnavailable
        /// The keyring's default collection is locked, missing, or not persistent; unlocking it
        /// would need a prompt, which ZRC never waits for.
        case locked
        /// The Secret Service did not answer within the store's time limit.
        case timedOut
        /// A stored value is not a valid identity key.
        case corrupt
        /// A key file or its directory is accessible to other users, not a regular file, or not
        /// owned by this user.
        case insecurePermissions
        /// A key ID or key that no store accepts (wrong length, characters outside the allowed set).
        case invalidArgument
        /// Any other failure of the keyring or the file system.
        case ioFailure
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
