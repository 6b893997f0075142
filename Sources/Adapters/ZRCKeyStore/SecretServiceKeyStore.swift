internal import CSecret
public import Logging
public import ZRCProtocol

/// Identity keys in the user's keyring through the Secret Service D-Bus API (libsecret).
///
/// Items go to the keyring's default collection — persistent, normally the login keyring — never
/// to the in-memory session collection. Each item has the schema `org.zrc.IdentityKey` and the
/// string attributes `application` = `zrc`, `role`, `key-id` and `synchronizable` = `false`; the
/// secret is the key in base64.
///
/// Every call first checks over D-Bus that the default collection exists, is persistent and is
/// unlocked, and fails with ``KeyStoreError/Kind/locked`` otherwise: libsecret would answer a
/// locked or missing collection with an unlock or create-keyring prompt and wait for it, forever
/// when nobody is there to answer. Each whole operation also runs under `timeout`
/// (``KeyStoreError/Kind/timedOut``), on a thread of its own that is abandoned if libsecret does
/// not come back (see `BoundedCall`). Calls block the calling thread for at most about `timeout`.
public struct SecretServiceKeyStore: IdentityKeyStore {
    public static let schemaName = SecretAttributes.schemaName

    /// The longest any one operation may take, from the first D-Bus call to the answer.
    public let timeout: Duration
    private let logger: Logger
    /// Tests turn this off to show that `timeout` alone still bounds an operation that reaches an
    /// unlock prompt. Always on in real use.
    let checksDefaultCollection: Bool

    public init(timeout: Duration = .seconds(10), logger: Logger = Logger(label: "org.zrc.keystore")) {
        self.init(timeout: timeout, logger: logger, checksDefaultCollection: true)
    }

    init(timeout: Duration, logger: Logger = Logger(label: "org.zrc.keystore"), checksDefaultCollection: Bool) {
        precondition(timeout > .zero, "SecretServiceKeyStore timeout must be positive")
        self.timeout = timeout
        self.logger = logger
        self.checksDefaultCollection = checksDefaultCollection
    }

    public var locationDescription: String {
        "the Secret Service keyring (default collection, items of schema \(Self.schemaName))"
    }

    public func load(role: KeyRole, keyID: String) throws(KeyStoreError) -> SecretBytes? {
        try IdentityKeyFormat.validate(keyID: keyID)
        let action = "reading the \(role.rawValue) key “\(keyID)” from the keyring"
        let key = try perform(action) { (timeout, cancellable) throws(KeyStoreError) -> SecretBytes? in
            let attributes = SecretAttributes(role: role, keyID: keyID)
            let text = try GLibError.check(action, timeout: timeout) { error in
                secret_password_lookupv_nonpageable_sync(attributes.schema, attributes.table, cancellable, error)
            }
            guard let text else { return nil }
            // Non-pageable memory from libsecret; secret_password_free wipes it before freeing.
            defer { secret_password_free(text) }
            let length = strlen(text)
            let key = text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                KeyText.decode(UnsafeBufferPointer(start: bytes, count: length))
            }
            guard let key, key.count == IdentityKeyFormat.privateKeyLength else {
                throw KeyStoreError(
                    .corrupt,
                    "The keyring item for the \(role.rawValue) key “\(keyID)” (schema \(Self.schemaName)) does not "
                        + "hold a valid \(IdentityKeyFormat.privateKeyLength)-byte key in base64. Delete it (e.g. "
                        + "`secret-tool clear application zrc role \(role.rawValue) key-id \(keyID)`) to create a new "
                        + "identity; peers that trusted the old one must pair again.")
            }
            return key
        }
        logger.debug(
            "looked up identity key in the keyring",
            metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)", "found": "\(key != nil)"])
        return key
    }

    public func store(_ key: SecretBytes, role: KeyRole, keyID: String, label: String) throws(KeyStoreError) {
        try IdentityKeyFormat.validate(keyID: keyID)
        try IdentityKeyFormat.validate(key: key)
        let action = "storing the \(role.rawValue) key “\(keyID)” in the keyring"
        let stored = try perform(action) { (timeout, cancellable) throws(KeyStoreError) -> Bool in
            let attributes = SecretAttributes(role: role, keyID: keyID)
            return try KeyText.withEncoded(key) { (text) throws(KeyStoreError) in
                try text.withMemoryRebound(to: CChar.self) { (characters) throws(KeyStoreError) in
                    try GLibError.check(action, timeout: timeout) { error in
                        // The text is NUL-terminated just past the slice (see KeyText.withEncoded).
                        secret_password_storev_sync(
                            attributes.schema, attributes.table, SECRET_COLLECTION_DEFAULT, label,
                            characters.baseAddress, cancellable, error)
                    }
                }
            } != 0
        }
        guard stored else {
            throw KeyStoreError(.ioFailure, "Failed \(action): libsecret reported failure without an error.")
        }
        logger.debug("stored identity key in the keyring", metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)"])
    }

    @discardableResult
    public func delete(role: KeyRole, keyID: String) throws(KeyStoreError) -> Bool {
        try IdentityKeyFormat.validate(keyID: keyID)
        let action = "deleting the \(role.rawValue) key “\(keyID)” from the keyring"
        let removed = try perform(action) { (timeout, cancellable) throws(KeyStoreError) -> Bool in
            let attributes = SecretAttributes(role: role, keyID: keyID)
            return try GLibError.check(action, timeout: timeout) { error in
                secret_password_clearv_sync(attributes.schema, attributes.table, cancellable, error)
            } != 0
        }
        logger.debug(
            "deleted identity key from the keyring",
            metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)", "existed": "\(removed)"])
        return removed
    }

    /// Runs `operation` under the deadline, after checking that the default collection is usable.
    private func perform<R: Sendable>(
        _ action: String,
        _ operation: @escaping @Sendable (Duration, UnsafeMutablePointer<GCancellable>) throws(KeyStoreError) -> R
    ) throws(KeyStoreError) -> R {
        let timeout = timeout
        let checksDefaultCollection = checksDefaultCollection
        return try BoundedCall.run(timeout: timeout, action: action) { (cancellable) throws(KeyStoreError) -> R in
            if checksDefaultCollection {
                try DefaultCollectionCheck(timeout: timeout, action: action, cancellable: cancellable).run()
            }
            return try operation(timeout, cancellable)
        }
    }
}
