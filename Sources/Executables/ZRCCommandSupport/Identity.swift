public import Logging
public import ZRCKeyStore
public import ZRCProtocol
public import ZRCSodium
public import ZRCStorage
import FoundationEssentials

/// The executables' shared wiring: which key store, the identity key, logging.
public enum Identity {
    public static let defaultKeyID = "default"

    /// The key store the user chose. The file store is an explicit opt-in and says so loudly on
    /// every start.
    public static func keyStore(_ choice: KeyStoreChoice, paths: ZRCPaths, logger: Logger) -> any IdentityKeyStore {
        switch choice {
        case .keyring:
            return SecretServiceKeyStore(logger: logger)
        case .file:
            let store = FileKeyStore(directory: paths.fileKeyDirectory.path)
            Console.warn(store.warning)
            return store
        }
    }

    /// Loads the identity key of `role`, creating and storing a new one on first use.
    public static func loadOrCreate(role: KeyRole, keyID: String = defaultKeyID, store: any IdentityKeyStore,
                                    crypto: SodiumCrypto, logger: Logger) throws(CommandError) -> NoiseKeyPair {
        do {
            if let privateKey = try store.load(role: role, keyID: keyID) {
                return try crypto.keyPair(privateKey: privateKey)
            }
            let pair = crypto.generateKeyPair()
            try store.store(pair.privateKey, role: role, keyID: keyID, label: "ZRC \(role.rawValue) identity key (\(keyID))")
            logger.notice("created a new \(role.rawValue) identity key in \(store.locationDescription)")
            return pair
        } catch let error as KeyStoreError {
            throw CommandError(.keyStore, error.message)
        } catch {
            throw CommandError(.keyStore, "the stored \(role.rawValue) identity key is not usable: \(error)")
        }
    }

    public static func makeCrypto() throws(CommandError) -> SodiumCrypto {
        do {
            return try SodiumCrypto()
        } catch {
            throw CommandError(.internal, "libsodium could not be initialised: \(error)")
        }
    }
}
