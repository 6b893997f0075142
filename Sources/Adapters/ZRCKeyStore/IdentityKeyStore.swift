public import ZRCProtocol

/// Where the long-term identity private keys of `zrc-host` and `zrc-ctl` live.
///
/// A key is named by its role and a key ID. Implementations never put key material into errors,
/// logs or descriptions. All calls are synchronous and bounded: they may block the calling thread
/// for a short time (a few D-Bus round trips or file operations) but never wait for a person.
public protocol IdentityKeyStore: Sendable {
    /// The key stored under `role` and `keyID`, or `nil` when there is none.
    /// Throws when the store cannot be read or holds something that is not a valid key.
    func load(role: KeyRole, keyID: String) throws(KeyStoreError) -> SecretBytes?

    /// Stores `key` (exactly ``IdentityKeyFormat/privateKeyLength`` bytes) under `role` and `keyID`,
    /// replacing any key stored there. `label` is shown to people browsing the store.
    func store(_ key: SecretBytes, role: KeyRole, keyID: String, label: String) throws(KeyStoreError)

    /// Removes the key stored under `role` and `keyID`. Returns whether there was one.
    @discardableResult
    func delete(role: KeyRole, keyID: String) throws(KeyStoreError) -> Bool

    /// Where keys live, for people: "the Secret Service keyring …", "files under /var/lib/…".
    var locationDescription: String { get }
}

/// The shape of what identity key stores hold, checked the same way by every store.
public enum IdentityKeyFormat {
    /// Identity private keys are X25519 scalars: 32 bytes.
    public static let privateKeyLength = 32

    /// Key IDs become keyring attributes and file names, so they are limited to 1–128 characters
    /// from `A–Z a–z 0–9 . _ -`, not starting with `.` or `-`.
    public static let maximumKeyIDLength = 128

    public static func validate(keyID: String) throws(KeyStoreError) {
        let utf8 = keyID.utf8
        guard !utf8.isEmpty, utf8.count <= maximumKeyIDLength,
              let first = utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-"),
              utf8.allSatisfy(isAllowedKeyIDByte)
        else {
            throw KeyStoreError(
                .invalidArgument,
                "Invalid key ID \"\(keyID.prefix(maximumKeyIDLength))\": use 1–\(maximumKeyIDLength) characters from "
                    + "A–Z a–z 0–9 . _ -, not starting with '.' or '-'.")
        }
    }

    static func validate(key: SecretBytes) throws(KeyStoreError) {
        guard key.count == privateKeyLength else {
            throw KeyStoreError(
                .invalidArgument,
                "An identity private key is \(privateKeyLength) bytes; refusing to store \(key.count) bytes.")
        }
    }

    private static func isAllowedKeyIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
