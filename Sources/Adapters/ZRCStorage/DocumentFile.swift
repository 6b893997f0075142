public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ZRCSystem

/// Loads and saves one JSON document with the rules every ZRC file follows: validated on load
/// with errors naming file and field, refused when other users may write it, written atomically
/// with mode 0600.
public enum DocumentFile {
    /// Returns nil when the file does not exist. Refuses a file another user owns or may modify,
    /// or one in a directory others may write (they could swap it for their own).
    public static func load<T: Decodable>(_ type: T.Type, from file: URL) throws(StorageError) -> T? {
        guard let bytes = try PrivateFile.read(file) else { return nil }
        var info = stat()
        if lstat(file.path, &info) == 0 {
            if info.st_uid != getuid() {
                throw StorageError(.insecurePermissions, path: file.path,
                                   reason: "belongs to another user (uid \(info.st_uid)); ZRC only trusts its own files")
            }
            if info.st_mode & 0o022 != 0 {
                throw StorageError(.insecurePermissions, path: file.path,
                                   reason: "other users may modify this file (mode \(String(info.st_mode & 0o777, radix: 8))); run `chmod 600 \(file.path)` after checking its content")
            }
        }
        let directory = file.deletingLastPathComponent().path
        var parent = stat()
        if lstat(directory, &parent) == 0, parent.st_mode & 0o022 != 0 || parent.st_uid != getuid() {
            throw StorageError(.insecurePermissions, path: directory,
                               reason: "other users may write this directory (mode \(String(parent.st_mode & 0o777, radix: 8)), owner uid \(parent.st_uid)), so they could replace \(file.lastPathComponent); run `chmod 700 \(directory)`")
        }
        return try JSONDocument.decode(T.self, from: bytes, path: file.path)
    }

    /// Reads, changes and writes back `file` while holding an exclusive lock on a lock file beside
    /// it, so two ZRC processes never interleave their read-modify-write (a concurrent save could
    /// otherwise bring back a controller another process just revoked). `empty` stands in for a
    /// file that does not exist yet; a document `change` left as it was is not written.
    public static func update<T: Codable & Equatable, Result>(_ type: T.Type, at file: URL, empty: @autoclosure () -> T,
                                                  _ change: (inout T) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try PrivateFile.ensurePrivateDirectory(file.deletingLastPathComponent())
        let lockPath = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).lock").path
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else { throw PrivateFile.ioError(lockPath, "cannot open the lock file") }
        defer { close(lock) }
        do {
            try SystemCall.retrying("flock") { flock(lock, LOCK_EX) }
        } catch {
            throw PrivateFile.ioError(lockPath, "cannot lock", code: error.errno)
        }
        let before = try load(T.self, from: file)
        var document = before ?? empty()
        let result = try change(&document)
        if document != before { try save(document, to: file) }
        return result
    }

    /// Refuses (with the loader's own error) to write anything `load` would refuse: a value
    /// that came from a peer (a name, an address) must never make the file unreadable later.
    public static func save<T: Codable>(_ value: T, to file: URL) throws(StorageError) {
        let bytes = try JSONDocument.encode(value, path: file.path)
        _ = try JSONDocument.decode(T.self, from: bytes, path: file.path)
        try PrivateFile.writeAtomically(bytes, to: file)
    }
}
