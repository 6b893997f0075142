/// Why a file request failed (`fileFailed`, u16). A struct so codes from newer peers arrive intact.
public struct FileErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The other side (or its user) cancelled the request.
    public static let cancelled = FileErrorCode(rawValue: 1)
    public static let notFound = FileErrorCode(rawValue: 2)
    /// The target exists and the request did not ask to replace it.
    public static let exists = FileErrorCode(rawValue: 3)
    /// The host's settings or the session's grant do not allow it (view-only, transfer off, one direction only).
    public static let refused = FileErrorCode(rawValue: 4)
    /// The path is absolute, holds `..` or an empty component, is too long or too deep, or leads
    /// out of the transfer root (through a symbolic link).
    public static let invalidPath = FileErrorCode(rawValue: 5)
    /// A name is not valid UTF-8 or holds control or invisible characters (its bytes are escaped in the text).
    public static let invalidName = FileErrorCode(rawValue: 6)
    /// No space left on the device, or the user's quota is used up.
    public static let noSpace = FileErrorCode(rawValue: 7)
    public static let permissionDenied = FileErrorCode(rawValue: 8)
    /// The file is larger than the receiver's `maxFileBytes`.
    public static let tooLarge = FileErrorCode(rawValue: 9)
    /// The file changed while it was being read.
    public static let changed = FileErrorCode(rawValue: 10)
    /// The received data's BLAKE2b digest differs from the sender's.
    public static let integrity = FileErrorCode(rawValue: 11)
    /// Another input/output error; the text says which.
    public static let ioError = FileErrorCode(rawValue: 12)
    /// Too many requests open, or a listing with too many entries.
    public static let limit = FileErrorCode(rawValue: 13)
    public static let notDirectory = FileErrorCode(rawValue: 14)
    /// Not a regular file (a directory, a device, a socket…).
    public static let notRegularFile = FileErrorCode(rawValue: 15)
    /// The peer broke the transfer's rules (an offset out of order, data beyond the announced size).
    public static let protocolError = FileErrorCode(rawValue: 16)
    /// The controller stopped an upload and wants no part kept (a browser's cancel: a page never
    /// resumes); `cancelled` keeps it for a later resume.
    public static let discarded = FileErrorCode(rawValue: 17)

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .notFound: "not found"
        case .exists: "exists"
        case .refused: "refused"
        case .invalidPath: "invalid path"
        case .invalidName: "invalid name"
        case .noSpace: "no space"
        case .permissionDenied: "permission denied"
        case .tooLarge: "too large"
        case .changed: "changed while read"
        case .integrity: "integrity check failed"
        case .ioError: "input/output error"
        case .limit: "limit reached"
        case .notDirectory: "not a directory"
        case .notRegularFile: "not a regular file"
        case .protocolError: "protocol error"
        case .discarded: "cancelled, nothing kept"
        default: "error \(rawValue)"
        }
    }
}
