/// A failure that ends a command: printed as one line and mapped to a documented exit code.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    /// Exit codes scripts can rely on (see README, "Exit codes").
    public enum Kind: Int32, Sendable {
        case failure = 1
        case unreachable = 3
        case refused = 4
        case invalidInvite = 5
        case notRunning = 6
        case keyStore = 7
        case storage = 8
        /// A recursive copy skipped entries (invalid names, special files); the rest was copied.
        case partial = 9
        /// Interrupted (Ctrl+C): what was under way stopped; parts stay for `--resume`.
        case cancelled = 130
        case `internal` = 70
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
