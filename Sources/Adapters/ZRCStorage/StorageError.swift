/// Everything that can go wrong with the files a user touches: each case names the file, and
/// where it applies the field, so the message tells a person exactly what to fix.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file exists but is not valid JSON or does not match its schema.
        case invalid
        /// The file is larger than any file ZRC writes; probably not ours.
        case tooLarge
        /// The file or its directory allows access by other users.
        case insecurePermissions
        /// Reading or writing failed at the operating-system level.
        case io
        /// A lookup by name found nothing.
        case notFound
        /// An add would duplicate an existing entry.
        case duplicate
    }

    public let kind: Kind
    public let path: String
    /// Dotted path of the offending field (`hosts[1].publicKey`), when there is one.
    public let field: String?
    public let reason: String

    public init(_ kind: Kind, path: String, field: String? = nil, reason: String) {
        self.kind = kind
        self.path = path
        self.field = field
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .invalid:
            let location = field.map { "field `\($0)`" } ?? "document"
            return "\(path): \(location): \(reason). ZRC does not replace a damaged file: fix it, or move it aside to start afresh."
        case .tooLarge, .insecurePermissions, .io, .notFound, .duplicate:
            return "\(path): \(reason)"
        }
    }
}
