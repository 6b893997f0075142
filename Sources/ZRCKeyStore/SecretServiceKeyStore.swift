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
/// Every call first checks over D-Bus that the default collection exists and is unlocked, and
/// fails with ``KeyStoreError/Kind/locked`` otherwise, because libsecret would answer a locked
/// collection by waiting for an unlock prompt that nobody answers in a headless session. Every
/// D-Bus round trip and libsecret call is also bounded by `timeout`
/// (``KeyStoreError/Kind/timedOut``). Calls block the calling thread for those round trips.
public struct SecretServiceKeyStore: IdentityKeyStore {
    public static let schemaName = SecretAttributes.schemaName

    /// The longest any single Secret Service call may take.
    public let timeout: Duration
    private let logger: Logger

    public init(timeout: Duration = .seconds(10), logger: Logger = Logger(label: "org.zrc.keystore")) {
        precondition(timeout > .zero, "SecretServiceKeyStore timeout must be positive")
        self.timeout = timeout
        self.logger = logger
    }

    public var locationDescription: String {
        "the Secret Service keyring (default collection, items of schema \(Self.schemaName))"
    }

    public func load(role: KeyRole, keyID: String) throws(KeyStoreError) -> SecretBytes? {
        try IdentityKeyFormat.validate(keyID: keyID)
        let action = "reading the \(role.rawValue) key “\(keyID)” from the keyring"
        try DefaultCollectionCheck(timeout: timeout, action: action).run()
        let attributes = SecretAttributes(role: role, keyID: keyID)
        let text = try GLibCall(timeout: timeout, action: action).run { cancellable, error in
            secret_password_lookupv_nonpageable_sync(attributes.schema, attributes.table, cancellable, error)
        }
        guard let text else {
            logger.debug("no identity key in the keyring", metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)"])
            return nil
        }
        // Non-pageable memory from libsecret; secret_password_free wipes it before freeing.
        defer { secret_password_free(text) }
        let length = strlen(text)
        let key = text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            KeyText.decode(UnsafeBufferPointer(start: bytes, count: length))
        }
        guard let key, key.count == IdentityKeyFormat.privateKeyLength else {
            throw KeyStoreError(
                .corrupt,
                "The keyring item for the \(role.rawValue) key “\(keyID)” (schema \(Self.schemaName)) does not hold a "
                    + "valid \(IdentityKeyFormat.privateKeyLength)-byte key in base64. Delete it (e.g. `secret-tool clear "
                    + "application zrc role \(role.rawValue) key-id \(keyID)`) to create a new identity; peers that "
                    + "trusted the old one must pair again.")
        }
        logger.debug("loaded identity key from the keyring", metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)"])
        return key
    }

    public func store(_ key: SecretBytes, role: KeyRole, keyID: String, label: String) throws(KeyStoreError) {
        try IdentityKeyFormat.validate(keyID: keyID)
        try IdentityKeyFormat.validate(key: key)
        let action = "storing the \(role.rawValue) key “\(keyID)” in the keyring"
        try DefaultCollectionCheck(timeout: timeout, action: action).run()
        let attributes = SecretAttributes(role: role, keyID: keyID)
        let call = GLibCall(timeout: timeout, action: action)
        let stored = try KeyText.withEncoded(key) { (text) throws(KeyStoreError) in
            try text.withMemoryRebound(to: CChar.self) { (characters) throws(KeyStoreError) in
                try call.run { cancellable, error in
                    // The text is NUL-terminated just past the slice (see KeyText.withEncoded).
                    secret_password_storev_sync(
                        attributes.schema, attributes.table, SECRET_COLLECTION_DEFAULT, label, characters.baseAddress,
                        cancellable, error)
                }
            }
        }
        guard stored != 0 else {
            throw KeyStoreError(.ioFailure, "Failed \(action): libsecret reported failure without an error.")
        }
        logger.debug("stored identity key in the keyring", metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)"])
    }

    @discardableResult
    public func delete(role: KeyRole, keyID: String) throws(KeyStoreError) -> Bool {
        try IdentityKeyFormat.validate(keyID: keyID)
        let action = "deleting the \(role.rawValue) key “\(keyID)” from the keyring"
        try DefaultCollectionCheck(timeout: timeout, action: action).run()
        let attributes = SecretAttributes(role: role, keyID: keyID)
        let removed = try GLibCall(timeout: timeout, action: action).run { cancellable, error in
            secret_password_clearv_sync(attributes.schema, attributes.table, cancellable, error)
        }
        logger.debug(
            "deleted identity key from the keyring",
            metadata: ["role": "\(role.rawValue)", "key-id": "\(keyID)", "existed": "\(removed != 0)"])
        return removed != 0
    }
}
