#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ZRCSystem

/// The POSIX calls behind `FileKeyStore`, each checked where it returns and turned into a
/// `KeyStoreError` that names the call and the path.
enum FileSystem {
    static func failure(_ call: String, _ path: String, code: Int32 = errno) -> KeyStoreError {
        let reason = SystemCall.describe(code)
        let kind: KeyStoreError.Kind = code == EACCES || code == EPERM ? .insecurePermissions : .ioFailure
        let hint = kind == .insecurePermissions ? " Check the owner and mode of the path and its directory." : ""
        return KeyStoreError(kind, "\(call)(\(path)) failed: \(reason).\(hint)")
    }

    /// `stat` of `path`, or `nil` when it does not exist.
    static func status(of path: String) throws(KeyStoreError) -> stat? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw failure("stat", path)
        }
        return status
    }

    static func requirePrivateDirectory(_ path: String, status: stat) throws(KeyStoreError) {
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw KeyStoreError(.ioFailure, "The key directory \(path) is not a directory.")
        }
        try requireOwnedByUs(path, status: status)
        guard status.st_mode & 0o077 == 0 else {
            throw KeyStoreError(
                .insecurePermissions,
                "The key directory \(path) is accessible to other users (mode \(octal(status.st_mode))); refusing to "
                    + "use it. Fix: chmod 700 '\(path)'")
        }
    }

    static func makePrivateDirectory(_ path: String) throws(KeyStoreError) {
        if let status = try status(of: path) {
            try requirePrivateDirectory(path, status: status)
            return
        }
        // Parents are created private too; an existing parent is left as it is.
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let parent = String(path[..<slash])
            if try status(of: parent) == nil { try makePrivateDirectory(parent) }
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw failure("mkdir", path) }
        guard let status = try status(of: path) else { throw failure("stat", path) }
        try requirePrivateDirectory(path, status: status)
    }

    /// Opens a key file for reading without following a symbolic link; `nil` when it does not exist.
    static func openForReading(_ path: String) throws(KeyStoreError) -> OpenFile? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT:
                return nil
            case ELOOP:
                throw KeyStoreError(
                    .insecurePermissions,
                    "The key file \(path) is a symbolic link; refusing to follow it. Replace it with the file itself.")
            default:
                throw failure("open", path)
            }
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    /// Writes `bytes` to a new file in `directory` with mode 0600, fsyncs it, renames it to `path`
    /// and fsyncs the directory. The temporary file is removed on any failure.
    static func writeAtomically(
        _ bytes: UnsafeBufferPointer<UInt8>, to path: String, directory: String
    ) throws(KeyStoreError) {
        let temporary = directory + "/.tmp-" + String(UInt64.random(in: .min ... .max), radix: 16) + ".key"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure("open", temporary) }
        let file = OpenFile(descriptor: descriptor, path: temporary)
        var renamed = false
        defer {
            file.close()
            if !renamed { unlink(temporary) }
        }
        // The umask can only clear bits; fchmod pins the mode to exactly 0600 regardless.
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("fchmod", temporary) }
        try file.writeAll(bytes)
        guard fsync(descriptor) == 0 else { throw failure("fsync", temporary) }
        guard rename(temporary, path) == 0 else { throw failure("rename", path) }
        renamed = true
        try syncDirectory(directory)
    }

    /// Makes a rename or unlink in `path` durable.
    static func syncDirectory(_ path: String) throws(KeyStoreError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", path) }
        defer { _ = close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", path) }
    }

    static func requireOwnedByUs(_ path: String, status: stat) throws(KeyStoreError) {
        guard status.st_uid == geteuid() else {
            throw KeyStoreError(
                .insecurePermissions,
                "\(path) belongs to user id \(status.st_uid), not to this user (\(geteuid())); refusing to use it. "
                    + "Fix: chown \(geteuid()) '\(path)'")
        }
    }

    static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }
}
