import Foundation
import Testing
import ZRCKeyStore
import ZRCProtocol

/// SecretServiceKeyStore against a real gnome-keyring-daemon: run through
/// `Tools/with-test-services.sh`, which provides a private bus and an unlocked login keyring.
/// Without it these tests fail with instructions; they never skip.
@Suite("Secret Service key store (unlocked test keyring)")
struct SecretServiceKeyStoreTests {
    let store = SecretServiceKeyStore(timeout: .seconds(10))

    @Test("store, load and delete round trip", arguments: KeyRole.allCases)
    func roundTrip(role: KeyRole) throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("round-trip")
        let key = TestServices.randomKey()

        try store.store(key, role: role, keyID: keyID, label: "ZRC test key")
        let loaded = try #require(try store.load(role: role, keyID: keyID))
        #expect(loaded.constantTimeEquals(key))

        #expect(try store.delete(role: role, keyID: keyID))
        #expect(try store.load(role: role, keyID: keyID) == nil)
        #expect(try store.delete(role: role, keyID: keyID) == false)
    }

    @Test("storing again replaces the key instead of adding a second item")
    func overwrite() async throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("overwrite")
        let first = TestServices.randomKey()
        let second = TestServices.randomKey()
        defer { _ = try? store.delete(role: .host, keyID: keyID) }

        try store.store(first, role: .host, keyID: keyID, label: "ZRC test key")
        try store.store(second, role: .host, keyID: keyID, label: "ZRC test key (replaced)")
        let loaded = try #require(try store.load(role: .host, keyID: keyID))
        #expect(loaded.constantTimeEquals(second))
        #expect(try await SecretServiceInspection.itemPaths(keyID: keyID).count == 1)
    }

    @Test("a key that was never stored loads as nil")
    func missingKey() throws {
        try TestServices.requireUnlockedKeyring()
        #expect(try store.load(role: .host, keyID: TestServices.uniqueKeyID("missing")) == nil)
    }

    @Test("the same key ID under the two roles names two separate keys")
    func rolesAreSeparate() throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("roles")
        let hostKey = TestServices.randomKey()
        defer { _ = try? store.delete(role: .host, keyID: keyID) }

        try store.store(hostKey, role: .host, keyID: keyID, label: "ZRC test key")
        #expect(try store.load(role: .controller, keyID: keyID) == nil)
        #expect(try store.delete(role: .controller, keyID: keyID) == false)
        #expect(try store.load(role: .host, keyID: keyID)?.constantTimeEquals(hostKey) == true)
    }

    @Test("the item carries the schema attributes and lives in the persistent login collection")
    func itemAsSeenBySecretTool() async throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("attributes")
        let key = TestServices.randomKey()
        defer { _ = try? store.delete(role: .controller, keyID: keyID) }
        try store.store(key, role: .controller, keyID: keyID, label: "ZRC controller key \(keyID)")

        let search = try await ChildProcess.run(
            "/usr/bin/env", ["secret-tool", "search", "--all", "application", "zrc", "key-id", keyID])
        try #require(search.status == 0, "secret-tool search failed:\n\(search.transcript)")
        // secret-tool prints the item's fields on stdout and its attributes on stderr.
        let fields = SecretServiceInspection.fields(search.standardOutput + "\n" + search.standardError)
        #expect(fields["attribute.application"] == "zrc")
        #expect(fields["attribute.role"] == "controller")
        #expect(fields["attribute.key-id"] == keyID)
        #expect(fields["attribute.synchronizable"] == "false")
        #expect(fields["schema"] == SecretServiceKeyStore.schemaName)
        #expect(fields["label"] == "ZRC controller key \(keyID)")
        let expectedSecret = key.withUnsafeBytes { Data($0).base64EncodedString() }
        #expect(fields["secret"] == expectedSecret, "the secret is the key in standard base64")

        let paths = try await SecretServiceInspection.itemPaths(keyID: keyID)
        #expect(paths.count == 1)
        for path in paths {
            #expect(path.hasPrefix("/org/freedesktop/secrets/collection/login/"), "item at \(path)")
            #expect(!path.hasPrefix("/org/freedesktop/secrets/collection/session/"), "item at \(path)")
        }
    }

    @Test("an item that is not a base64 32-byte key is reported as corrupt", arguments: ["not base64!", "AAAA"])
    func corruptItem(secret: String) async throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("corrupt")
        defer { _ = try? store.delete(role: .host, keyID: keyID) }
        try await SecretServiceInspection.storeRaw(secret: secret, role: .host, keyID: keyID)

        let error = try #require(throws: KeyStoreError.self) { try store.load(role: .host, keyID: keyID) }
        #expect(error.kind == .corrupt)
        #expect(error.message.contains(keyID))
        #expect(!error.message.contains(secret), "the stored value must not appear in the error")
    }

    @Test("a key that is not 32 bytes is refused before it reaches the keyring", arguments: [0, 31, 33, 64])
    func wrongKeyLength(count: Int) throws {
        try TestServices.requireUnlockedKeyring()
        let keyID = TestServices.uniqueKeyID("length")
        let error = try #require(throws: KeyStoreError.self) {
            try store.store(TestServices.randomKey(count: count), role: .host, keyID: keyID, label: "ZRC test key")
        }
        #expect(error.kind == .invalidArgument)
        #expect(try store.load(role: .host, keyID: keyID) == nil)
    }
}

/// Looks at the test keyring from outside ZRCKeyStore: secret-tool and raw D-Bus calls.
enum SecretServiceInspection {
    /// "name = value" lines as printed by secret-tool.
    static func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let range = line.range(of: " = ") else { continue }
            fields[String(line[..<range.lowerBound])] = String(line[range.upperBound...])
        }
        return fields
    }

    /// Object paths of every item (locked or not) with application=zrc and this key ID.
    static func itemPaths(keyID: String) async throws -> [String] {
        let result = try await ChildProcess.run(
            "/usr/bin/env",
            ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
             "org.freedesktop.Secret.Service.SearchItems", "dict:string:string:application,zrc,key-id,\(keyID)"])
        try #require(result.status == 0, "SearchItems failed:\n\(result.transcript)")
        return result.standardOutput.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "object path \"") else { return nil }
            return String(line[start.upperBound...].dropLast())
        }
    }

    /// Stores an arbitrary secret under ZRC's schema and attributes, as another program could.
    static func storeRaw(secret: String, role: KeyRole, keyID: String) async throws {
        let directory = try TestServices.temporaryDirectory("raw-secret")
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = "printf '%s' \"$ZRC_RAW_SECRET\" | secret-tool store --label='ZRC test: raw item' "
            + "xdg:schema \(SecretServiceKeyStore.schemaName) application zrc role \(role.rawValue) "
            + "key-id \(keyID) synchronizable false"
        var environment = ProcessInfo.processInfo.environment
        environment["ZRC_RAW_SECRET"] = secret
        let result = try await ChildProcess.run("/bin/sh", ["-c", command], environment: environment)
        try #require(result.status == 0, "secret-tool store failed:\n\(result.transcript)")
    }
}
