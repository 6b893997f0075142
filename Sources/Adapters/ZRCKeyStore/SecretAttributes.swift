internal import CSecret

/// The libsecret schema of ZRC identity keys and the attribute table naming one key.
///
/// Attributes (all strings): `application` = `zrc`, `role` = `host`/`controller`, `key-id`, and
/// `synchronizable` = `false` (mirroring the Keychain design's non-synchronizable items; no Secret
/// Service syncs today, the attribute records the intent). libsecret adds `xdg:schema`.
final class SecretAttributes {
    static let schemaName = "org.zrc.IdentityKey"
    static let attributeNames = ["application", "role", "key-id", "synchronizable"]

    /// The schema object (`SecretSchema *`), owned; unreferenced in `deinit`.
    let schema: UnsafeMutablePointer<SecretSchema>
    /// The attribute values (`GHashTable *` of `gchar *` → `gchar *`), owned; unreferenced in `deinit`.
    let table: OpaquePointer

    init(role: KeyRole, keyID: String) {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)!
        for name in Self.attributeNames {
            // The value is the attribute type; SECRET_SCHEMA_ATTRIBUTE_STRING is 0, i.e. NULL.
            g_hash_table_insert(
                types, g_strdup(name),
                UnsafeMutableRawPointer(bitPattern: Int(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue)))
        }
        schema = secret_schema_newv(Self.schemaName, SECRET_SCHEMA_NONE, types)
        g_hash_table_unref(types)

        table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        let values = ["zrc", role.rawValue, keyID, "false"]
        for (name, value) in zip(Self.attributeNames, values) {
            g_hash_table_insert(table, g_strdup(name), g_strdup(value))
        }
    }

    deinit {
        g_hash_table_unref(table)
        secret_schema_unref(schema)
    }
}
