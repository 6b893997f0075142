import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ZRCSystem

/// A directory only this user can use (the control socket's), checked without following
/// symbolic links: opened with O_NOFOLLOW | O_DIRECTORY and inspected with fstat, so a link
/// another user planted at its path (e.g. in /tmp) is refused, never followed.
enum PrivateDirectory {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates `directory` (mode 0700) if missing and `create`, then requires that it is a real
    /// directory owned by us that nobody else may enter (tightening our own loose one).
    static func check(_ directory: URL, create: Bool = true) throws(Problem) {
        let path = directory.path
        if create, mkdir(path, 0o700) != 0, errno == ENOENT {
            try? FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = mkdir(path, 0o700)
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR { throw Problem(description: "\(path) is a symbolic link or not a directory") }
            throw Problem(description: "cannot open \(path): \(SystemCall.describe(errno))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Problem(description: "cannot inspect \(path): \(SystemCall.describe(errno))") }
        guard info.st_uid == getuid() else { throw Problem(description: "\(path) belongs to another user (uid \(info.st_uid))") }
        if info.st_mode & 0o077 != 0 {
            guard fchmod(fd, 0o700) == 0 else { throw Problem(description: "cannot restrict \(path) to mode 0700") }
        }
    }
}
