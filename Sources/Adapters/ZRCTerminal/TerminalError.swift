/// The one error type of ZRCTerminal: what went wrong with the terminal, and what to do.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Standard input or output is not a terminal (a pipe, a file).
        case notATerminal
        /// A terminal call failed (the message names it and the errno text).
        case systemCall
        /// The terminal went away (hang-up, closed pseudo-terminal).
        case closed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
