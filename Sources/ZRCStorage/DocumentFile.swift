public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loads and saves one JSON document with the rules every ZRC file follows: validated on load
/// with errors naming file and field, refused when other users may write it, written atomically
/// with mode 0600.
public enum DocumentFile {
    /// Returns nil when the file does not exist.
    public static func load<T: Decodable>(_ type: T.Type, from file: URL) throws(StorageError) -> T? {
        guard let bytes = try PrivateFile.read(file) else { return nil }
        var info = stat()
        if stat(file.path, &info) == 0, info.st_mode & 0o022 != 0 {
            throw StorageError(.insecurePermissions, path: file.path,
                               reason: "other users may modify this file (mode \(String(info.st_mode & 0o777, radix: 8))); run `chmod 600 \(file.path)` after checking its content")
        }
        return try JSONDocument.decode(T.self, from: bytes, path: file.path)
    }

    /// Refuses (with the loader's own error) to write anything `load` would refuse: a value
    /// that came from a peer (a name, an address) must never make the file unreadable later.
    public static func save<T: Codable>(_ value: T, to file: URL) throws(StorageError) {
        let bytes = try JSONDocument.encode(value, path: file.path)
        _ = try JSONDocument.decode(T.self, from: bytes, path: file.path)
        try PrivateFile.writeAtomically(bytes, to: file)
    }
}
