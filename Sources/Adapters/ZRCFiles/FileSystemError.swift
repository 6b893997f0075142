import Glibc
public import ZRCProtocol
import ZRCSystem

/// A file operation that failed, as the transfer protocol names it (`FileErrorCode`), with a text
/// for people that says which call and which path.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: FileErrorCode
    public let text: String

    public init(_ code: FileErrorCode, _ text: String) {
        self.code = code
        self.text = text
    }

    public var description: String { text }

    /// errno of a call on `what` (a path or name, shown as the user gave it).
    public static func errno(_ code: Int32, _ call: String, _ what: String) -> FileSystemError {
        let described = SystemCall.describe(code)
        switch code {
        case ENOENT: return FileSystemError(.notFound, "\(what): no such file or directory")
        case EEXIST, ENOTEMPTY: return FileSystemError(.exists, "\(what) already exists")
        case EACCES, EPERM, EROFS: return FileSystemError(.permissionDenied, "\(what): \(described)")
        case ENOSPC: return FileSystemError(.noSpace, "\(what): no space left on the device")
        case EDQUOT: return FileSystemError(.noSpace, "\(what): the disk quota is used up")
        case EXDEV, ELOOP: return FileSystemError(.invalidPath, "\(what) leads out of the transfer root (a symbolic link or mount)")
        case ENOTDIR: return FileSystemError(.notDirectory, "\(what): a component is not a directory")
        case EISDIR: return FileSystemError(.notRegularFile, "\(what) is a directory")
        case EFBIG: return FileSystemError(.tooLarge, "\(what): too large for the file system")
        case ENAMETOOLONG: return FileSystemError(.invalidPath, "\(what): name too long")
        default: return FileSystemError(.ioError, "\(call) \(what): \(described)")
        }
    }

    static func from(_ error: SystemCallError, _ what: String) -> FileSystemError {
        errno(error.errno, error.call, what)
    }
}
