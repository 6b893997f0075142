import Foundation
import Testing
import ZRCKeyStore
import ZRCProtocol

@Suite("File key store")
struct FileKeyStoreTests {
    private func withStore(_ body: (FileKeyStore, URL) throws -> Void) throws {
        let root = try TestServices.temporaryDirectory("file-store")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("keys/identity")
        try body(FileKeyStore(directory: directory.path), directory)
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("round trip: directory 0700, file 0600, one base64 line, no temporary files left")
    func roundTrip() throws {
        try withStore { store, directory in
            let key = TestServices.randomKey()
            #expect(try store.load(role: .host, keyID: "main") == nil, "nothing stored yet, directory missing")
            try store.store(key, role: .host, keyID: "main", label: "ignored")

            let path = try store.path(role: .host, keyID: "main")
            #expect(path == directory.path + "/host-main.key")
            #expect(try mode(directory.path) == 0o700)
            #expect(try mode(path) == 0o600)
            let contents = try String(contentsOfFile: path, encoding: .utf8)
            #expect(contents == key.withUnsafeBytes { Data($0).base64EncodedString() } + "\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["host-main.key"])

            #expect(try store.load(role: .host, keyID: "main")?.constantTimeEquals(key) == true)
            #expect(try store.load(role: .controller, keyID: "main") == nil)
            #expect(try store.delete(role: .host, keyID: "main"))
            #expect(try store.delete(role: .host, keyID: "main") == false)
            #expect(try store.load(role: .host, keyID: "main") == nil)
        }
    }

    @Test("storing again replaces the file atomically: a new inode, mode 0600, the new key")
    func atomicReplace() throws {
        try withStore { store, _ in
            let first = TestServices.randomKey()
            let second = TestServices.randomKey()
            try store.store(first, role: .controller, keyID: "laptop", label: "")
            let path = try store.path(role: .controller, keyID: "laptop")
            let firstInode = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
            // Someone loosened the old file; the replacement must not inherit that.
            chmod(path, 0o640)

            try store.store(second, role: .controller, keyID: "laptop", label: "")
            let secondInode = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
            #expect(firstInode != secondInode, "the file was replaced by rename, not rewritten in place")
            #expect(try mode(path) == 0o600)
            #expect(try store.load(role: .controller, keyID: "laptop")?.constantTimeEquals(second) == true)
        }
    }

    @Test("new files are 0600 even under a permissive umask")
    func permissiveUmask() throws {
        try withStore { store, directory in
            let previous = umask(0)
            defer { umask(previous) }
            try store.store(TestServices.randomKey(), role: .host, keyID: "umask", label: "")
            #expect(try mode(directory.path) == 0o700)
            #expect(try mode(try store.path(role: .host, keyID: "umask")) == 0o600)
        }
    }

    @Test("a key file that others can access is refused with the chmod that fixes it", arguments: [0o644, 0o640, 0o604, 0o660])
    func refusesOpenFile(permissions: Int) throws {
        try withStore { store, _ in
            try store.store(TestServices.randomKey(), role: .host, keyID: "open", label: "")
            let path = try store.path(role: .host, keyID: "open")
            chmod(path, mode_t(permissions))
            let error = try #require(throws: KeyStoreError.self) { try store.load(role: .host, keyID: "open") }
            #expect(error.kind == .insecurePermissions)
            #expect(error.message.contains("chmod 600 '\(path)'"), "\(error.message)")
            #expect(error.message.contains("0" + String(permissions, radix: 8)), "\(error.message)")
        }
    }

    @Test("a key directory that others can access is refused with the chmod that fixes it")
    func refusesOpenDirectory() throws {
        try withStore { store, directory in
            try store.store(TestServices.randomKey(), role: .host, keyID: "dir", label: "")
            chmod(directory.path, 0o755)
            for attempt in [
                { () throws in _ = try store.load(role: .host, keyID: "dir") },
                { () throws in try store.store(TestServices.randomKey(), role: .host, keyID: "dir", label: "") },
            ] {
                let error = try #require(throws: KeyStoreError.self) { try attempt() }
                #expect(error.kind == .insecurePermissions)
                #expect(error.message.contains("chmod 700 '\(directory.path)'"), "\(error.message)")
            }
        }
    }

    @Test("a symbolic link in place of a key file is refused")
    func refusesSymlink() throws {
        try withStore { store, directory in
            try store.store(TestServices.randomKey(), role: .host, keyID: "real", label: "")
            try FileManager.default.createSymbolicLink(
                atPath: try store.path(role: .host, keyID: "link"), withDestinationPath: directory.path + "/host-real.key")
            let error = try #require(throws: KeyStoreError.self) { try store.load(role: .host, keyID: "link") }
            #expect(error.kind == .insecurePermissions)
        }
    }

    @Test(
        "a key file that does not hold a base64 32-byte key is reported as corrupt",
        arguments: ["", "\n", "not base64 at all\n", "AAAA\n", String(repeating: "A", count: 500)])
    func corruptFile(contents: String) throws {
        try withStore { store, _ in
            try store.store(TestServices.randomKey(), role: .host, keyID: "bad", label: "")
            let path = try store.path(role: .host, keyID: "bad")
            try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
            let error = try #require(throws: KeyStoreError.self) { try store.load(role: .host, keyID: "bad") }
            #expect(error.kind == .corrupt)
            #expect(error.message.contains(path))
        }
    }

    @Test("the startup warning names the directory and says keys are unencrypted")
    func warning() {
        let store = FileKeyStore(directory: "/var/lib/zrc/keys")
        #expect(store.warning.hasPrefix("WARNING"))
        #expect(store.warning.contains("/var/lib/zrc/keys"))
        #expect(store.warning.contains("UNENCRYPTED"))
        #expect(store.locationDescription.contains("/var/lib/zrc/keys"))
    }

    @Test("key IDs that could escape the directory or break attributes are refused",
          arguments: ["", "../x", "a/b", ".hidden", "-flag", "with space", "ü", String(repeating: "a", count: 129)])
    func invalidKeyIDs(keyID: String) throws {
        try withStore { store, _ in
            for attempt in [
                { () throws in _ = try store.load(role: .host, keyID: keyID) },
                { () throws in try store.store(TestServices.randomKey(), role: .host, keyID: keyID, label: "") },
                { () throws in try store.delete(role: .host, keyID: keyID) },
            ] {
                let error = try #require(throws: KeyStoreError.self) { try attempt() }
                #expect(error.kind == .invalidArgument)
            }
        }
    }
}
