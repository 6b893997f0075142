/// The one error type of ZRCChafa: a kind to switch on and a message a person can act on.
public struct ChafaError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A cell grid, cell size or pixel buffer that cannot be rendered (empty, too large, a
        /// stride smaller than a row, a buffer shorter than its geometry).
        case invalidArgument
        /// libchafa returned no object where one was required (usually out of memory).
        case libraryFailure
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "terminal renderer: \(message)" }
}
