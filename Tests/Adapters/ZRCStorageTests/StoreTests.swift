import Foundation
import Testing
import ZRCProtocol
import ZRCStorage

func publicKey(_ fill: UInt8) throws -> NoisePublicKey { try NoisePublicKey(bytes: [UInt8](repeating: fill, count: 32)) }

@Suite struct StoreTests {
    @Test func authorizeWritesAPrivateFileAndRevokeRemoves() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("data/zrc/authorized-controllers.json")
        let store = AuthorizedControllersStore(file: file)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let added = try await store.authorize(name: "laptop", publicKey: publicKey(1), at: date)
        #expect(added.name == "laptop")
        #expect(try mode(of: file) == 0o600)
        #expect(try mode(of: file.deletingLastPathComponent()) == 0o700)

        let second = try await store.authorize(name: "laptop", publicKey: publicKey(2), at: date)
        #expect(second.name == "laptop-2", "a taken name gets a suffix")
        let again = try await store.authorize(name: "other", publicKey: publicKey(1), at: date)
        #expect(again.name == "laptop", "re-pairing the same key keeps its entry")
        #expect(try await store.all().count == 2)

        let removed = try await store.revoke(name: "laptop")
        #expect(removed.publicKey == (try publicKey(1)))
        #expect(try await store.controller(withKey: publicKey(1)) == nil)
        let missing = await #expect(throws: StorageError.self) { try await store.revoke(name: "laptop") }
        #expect(missing?.kind == .notFound)
        #expect(missing?.description.contains("laptop-2") == true, "lists the names that do exist")
    }

    @Test func handshakeTimestampsAreAcceptedOnceAndNotFromBeforeTheWindow() async throws {
        let directory = try TemporaryDirectory()
        let store = AuthorizedControllersStore(file: directory.file("a.json"))
        let now = Date()
        let base: UInt64 = 1_800_000_000_000_000
        let window = AuthorizedControllersStore.replayWindowMicros
        try await store.authorize(name: "c", publicKey: publicKey(7), at: now)
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base))
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base) == false, "a replay")
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base - 1),
                "a command started at the same moment may arrive second")
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base - 1) == false)
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base - window) == false,
                "older than the window")
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base + 1))
        #expect(try await store.recordHandshake(publicKey: publicKey(8), timestampMicros: base) == false,
                "an unknown controller is never accepted")
        let saved = try #require(try await store.controller(withKey: publicKey(7)))
        #expect(saved.lastHandshakeMicros == base + 1)
        // After a restart only the high-water mark is known: anything not newer is refused.
        let restarted = AuthorizedControllersStore(file: directory.file("a.json"))
        #expect(try await restarted.recordHandshake(publicKey: publicKey(7), timestampMicros: base - 2) == false)
    }

    /// Revoked and paired again in one run: the old in-memory window must neither crash the host
    /// (a remembered timestamp above the fresh entry's high-water mark made the subtraction trap)
    /// nor refuse the new pairing's handshakes.
    @Test func aKeyRevokedAndPairedAgainStartsAFreshWindow() async throws {
        let directory = try TemporaryDirectory()
        let store = AuthorizedControllersStore(file: directory.file("a.json"))
        let base: UInt64 = 1_800_000_000_000_000
        try await store.authorize(name: "c", publicKey: publicKey(7), at: Date())
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base + 5_000_000))
        _ = try await store.revoke(name: "c")
        try await store.authorize(name: "c", publicKey: publicKey(7), at: Date())
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base))
        #expect(try await store.recordHandshake(publicKey: publicKey(7), timestampMicros: base + 1))
    }

    @Test func knownHostsRoundTripAndReplaceByName() async throws {
        let directory = try TemporaryDirectory()
        let store = KnownHostsStore(file: directory.file("known-hosts.json"))
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let host = KnownHost(name: "desk", hostName: "desk.local", publicKey: try publicKey(3),
                             addresses: ["192.0.2.7:7420", "[2001:db8::1]:7420"], pairedAt: date)
        try await store.add(host)
        #expect(try await store.host(named: "desk") == host)
        var repaired = host
        repaired.publicKey = try publicKey(4)
        try await store.add(repaired)
        #expect(try await store.all() == [repaired])
        let missing = await #expect(throws: StorageError.self) { try await store.host(named: "nope") }
        #expect(missing?.description.contains("known: desk") == true)
        _ = try await store.remove(named: "desk")
        let none = await #expect(throws: StorageError.self) { try await store.host(named: "desk") }
        #expect(none?.description.contains("zrc-ctl pair") == true)
    }

    @Test func filesOthersCanWriteAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(#"{"version":1,"hosts":[]}"#, to: "known-hosts.json", mode: 0o666)
        let error = await #expect(throws: StorageError.self) { try await KnownHostsStore(file: file).all() }
        #expect(error?.kind == .insecurePermissions)
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test func oversizedFilesAreRefusedBeforeReading() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("big.json")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(PrivateFile.maximumSize + 1))
        try handle.close()
        let error = #expect(throws: StorageError.self) { try PrivateFile.read(file) }
        #expect(error?.kind == .tooLarge)
    }

    @Test func atomicWriteLeavesNoTemporaryFilesAndReplacesContent() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("x.json")
        try PrivateFile.writeAtomically(Array("one".utf8), to: file)
        try PrivateFile.writeAtomically(Array("two".utf8), to: file)
        #expect(try PrivateFile.read(file) == Array("two".utf8))
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(entries == ["x.json"])
    }

    @Test func damagedFileIsNeverReplaced() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("{broken", to: "authorized-controllers.json")
        let store = AuthorizedControllersStore(file: file)
        await #expect(throws: StorageError.self) { try await store.authorize(name: "x", publicKey: publicKey(1), at: Date()) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "{broken")
    }
}
