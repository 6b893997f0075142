#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import ZRCProtocol

/// Identity keys in plain files: an explicit opt-in for hosts run as services, where no keyring
/// session exists. Executables print ``warning`` at every start while this store is in use.
///
/// Layout: one file per key, `<directory>/<role>-<key-id>.key`, holding the key in base64 and a
/// newline. The directory is created with mode 0700 and files are written with mode 0600,
/// atomically (a temporary file in the same directory, created 0600, written, fsynced, renamed
/// over the old file, then the directory fsynced), so a crash leaves the old key or the new one,
/// never a mix. Files or a directory that other users can access, that are symbolic links, or that
/// belong to another user are refused with the `chmod`/`chown` that fixes them.
public struct FileKeyStore: IdentityKeyStore {
    public let directory: String

    public init(directory: String) {
        precondition(!directory.isEmpty, "FileKeyStore needs a directory")
        self.directory = directory
    }

    public var locationDescription: String { "unencrypted key files under \(directory)" }

    /// The text executables print at every start while keys live in files.
    public var warning: String {
        "WARNING: zrc identity keys are stored UNENCRYPTED in files under \(directory) (file key store, "
            + "explicitly enabled). Anyone who can read them — root, backups, a copy of the disk — can impersonate "
            + "this machine. Use the desktop keyring (Secret Service) unless this host runs as a service; keep "
            + "the directory mode 0700 and the files mode 0600."
    }

    /// The file that holds the key for `role` and `keyID`.
    public func path(role: KeyRole, keyID: String) throws(KeyStoreError) -> String {
        try IdentityKeyFormat.validate(keyID: keyID)
        return directory + "/" + role.rawValue + "-" + keyID + ".key"
    }

    public func load(role: KeyRole, keyID: String) throws(KeyStoreError) -> SecretBytes? {
        let path = try path(role: role, keyID: keyID)
        guard let directoryStatus = try FileSystem.status(of: directory) else { return nil }
        try FileSystem.requirePrivateDirectory(directory, status: directoryStatus)
        guard let file = try FileSystem.openForReading(path) else { return nil }
        defer { file.close() }
        let text = try file.readPrivateFile(maximumSize: Self.maximumFileSize)
        defer { text.wipe() }
        guard let key = KeyText.decode(text.bytes), key.count == IdentityKeyFormat.privateKeyLength else {
            throw KeyStoreError(
                .corrupt,
                "The key file \(path) does not hold a valid \(IdentityKeyFormat.privateKeyLength)-byte key (expected "
                    + "one line of base64). Restore it from a backup, or delete it to create a new identity; peers "
                    + "that trusted the old one must pair again.")
        }
        return key
    }

    public func store(_ key: SecretBytes, role: KeyRole, keyID: String, label: String) throws(KeyStoreError) {
        let path = try path(role: role, keyID: keyID)
        try IdentityKeyFormat.validate(key: key)
        try FileSystem.makePrivateDirectory(directory)
        // `label` has no place in a file; the file name already says what the key is.
        try KeyText.withEncoded(key, suffix: "\n") { (text) throws(KeyStoreError) in
            try FileSystem.writeAtomically(text, to: path, directory: directory)
        }
    }

    @discardableResult
    public func delete(role: KeyRole, keyID: String) throws(KeyStoreError) -> Bool {
        let path = try path(role: role, keyID: keyID)
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw FileSystem.failure("unlink", path)
        }
        try FileSystem.syncDirectory(directory)
        return true
    }

    /// A key file is one line of base64; anything much larger is not a key file.
    static let maximumFileSize = 256
}
