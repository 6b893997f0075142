public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ZRCSystem

/// Reads and writes files that only their owner may access.
///
/// Writes are atomic: the bytes go to a temporary file created with mode 0600 in the same
/// directory, are flushed to disk, and the temporary file is renamed over the target, so a reader
/// (or a crash) sees either the old or the new file, never half of one, and the content is never
/// readable by others even for an instant.
public enum PrivateFile {
    /// Largest file ZRC reads; checked against the file size before reading.
    public static let maximumSize = 4 * 1024 * 1024

    /// Creates `directory` (and parents) with mode 0700, and refuses an existing one that other
    /// users can enter or that belongs to someone else.
    public static func ensurePrivateDirectory(_ directory: URL) throws(StorageError) {
        let path = directory.path
        var info = stat()
        // lstat: a symbolic link at the path is refused, never followed.
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw ioError(path, "cannot inspect directory") }
            let parent = directory.deletingLastPathComponent()
            if parent.path != path { try ensureDirectoryExists(parent) }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw ioError(path, "cannot create directory") }
            guard lstat(path, &info) == 0 else { throw ioError(path, "cannot inspect directory") }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError(.insecurePermissions, path: path, reason: "exists but is not a directory (a symbolic link or a file); ZRC will not follow it")
        }
        guard info.st_uid == getuid() else {
            throw StorageError(.insecurePermissions, path: path,
                               reason: "belongs to another user (uid \(info.st_uid)); ZRC will not keep files there")
        }
        if info.st_mode & 0o077 != 0 {
            // Our own directory with loose permissions: tighten rather than fail, it is ours.
            guard chmod(path, 0o700) == 0 else { throw ioError(path, "cannot restrict directory to mode 0700") }
        }
    }

    /// Parents of private directories (e.g. `~/.config`) only need to exist.
    private static func ensureDirectoryExists(_ directory: URL) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError(.io, path: directory.path, reason: "cannot create directory: \(error.localizedDescription)")
        }
    }

    /// Returns the file's bytes, or nil when it does not exist.
    public static func read(_ file: URL) throws(StorageError) -> [UInt8]? {
        let path = file.path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw ioError(path, "cannot open for reading")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ioError(path, "cannot inspect file") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(.io, path: path, reason: "is not a regular file")
        }
        guard info.st_size <= maximumSize else {
            throw StorageError(.tooLarge, path: path,
                               reason: "is \(info.st_size) bytes; ZRC's files are never larger than \(maximumSize) bytes — is this the right file?")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n: Int
            do {
                n = try SystemCall.retrying("read") { bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) } }
            } catch {
                throw ioError(path, "read failed", code: error.errno)
            }
            if n == 0 { break }
            offset += n
        }
        return Array(bytes.prefix(offset))
    }

    /// Replaces `file` atomically with `bytes`, mode 0600, creating its directory (0700) if needed.
    /// `tighteningDirectory: false` leaves an existing directory as it is (a user's own folder, e.g.
    /// for a screenshot), and only requires it to exist.
    public static func writeAtomically(_ bytes: [UInt8], to file: URL, tighteningDirectory: Bool = true) throws(StorageError) {
        let directory = file.deletingLastPathComponent()
        if tighteningDirectory {
            try ensurePrivateDirectory(directory)
        } else if !FileManager.default.fileExists(atPath: directory.path) {
            throw StorageError(.io, path: directory.path, reason: "the directory does not exist")
        }
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let tempPath = temporary.path
        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw ioError(tempPath, "cannot create temporary file") }
        var succeeded = false
        defer {
            if !succeeded { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            var offset = 0
            while offset < bytes.count {
                do {
                    offset += try SystemCall.retrying("write") { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) } }
                } catch {
                    throw ioError(tempPath, "write failed", code: error.errno)
                }
            }
            guard fsync(fd) == 0 else { throw ioError(tempPath, "cannot flush to disk") }
        }
        guard rename(tempPath, file.path) == 0 else { throw ioError(file.path, "cannot replace file") }
        succeeded = true
        // Make the rename itself durable.
        let dirFD = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    static func ioError(_ path: String, _ what: String, code: Int32 = errno) -> StorageError {
        StorageError(.io, path: path, reason: "\(what): \(SystemCall.describe(code))")
    }
}
