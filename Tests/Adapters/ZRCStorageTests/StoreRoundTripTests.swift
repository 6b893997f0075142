import Foundation
import PropertyBased
import Testing
import ZRCProtocol
import ZRCStorage

/// A store never writes what its own loader would refuse: names and addresses come from peers
/// (an invite, a host's `pairAccepted`), and one bad entry would make the whole file unreadable.
@Suite struct StoreRoundTripTests {
    /// Strings from everything a peer could send: plain text, controls, escapes, bidi, zero-width.
    static let hostile: Generator<String, Shrink.None<String>> = Generator { rng in
        let pieces = ["desk", "192.0.2.7:7420", "[2001:db8::1]:7420", "日本", " ", "\u{1B}[2J", "\u{7}", "\u{9B}", "\u{202E}",
                      "\u{200B}", "\u{2028}", "\n", "\t", "/", ":", "a", "é", "😀", ""]
        return (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
    }

    @Test func property_knownHostsSaveOnlyWhatTheyCanLoad() async throws {
        let directory = try TemporaryDirectory()
        let strings = Self.hostile
        await propertyCheck(count: 300, input: strings, strings, strings) { name, hostName, address in
            let file = directory.file("known-hosts-\(UUID().uuidString).json")
            let store = KnownHostsStore(file: file)
            let host = KnownHost(name: name, hostName: hostName, publicKey: try NoisePublicKey(bytes: [UInt8](repeating: 3, count: 32)),
                                 addresses: [address], pairedAt: Date(timeIntervalSince1970: 1_800_000_000))
            do {
                try await store.add(host)
            } catch {
                #expect(!FileManager.default.fileExists(atPath: file.path), "a refused entry leaves no file behind")
                return
            }
            let loaded = try await KnownHostsStore(file: file).all()
            #expect(loaded == [host], "what was saved loads back unchanged")
            for text in [name, hostName, address] { #expect(TerminalSafeText.isSafe(text), "\(text.debugDescription) was saved") }
        }
    }

    @Test(arguments: ["evil\u{1B}]0;x\u{7}", "rtl\u{202E}lapot", "zero\u{200B}", "a\nb"])
    func namesAPeerCouldUseToFoolATerminalAreRefused(name: String) async throws {
        let directory = try TemporaryDirectory()
        let store = KnownHostsStore(file: directory.file("k.json"))
        let host = KnownHost(name: "desk", hostName: name, publicKey: try NoisePublicKey(bytes: [UInt8](repeating: 3, count: 32)),
                             addresses: ["192.0.2.7:7420"], pairedAt: Date(timeIntervalSince1970: 1_800_000_000))
        await #expect(throws: StorageError.self) { try await store.add(host) }
        #expect(DeviceName.problem(with: name) != nil)
    }
}

/// Two processes editing one trust store (modelled by two store instances, each reading and
/// writing the file itself): a revoke must never be undone by the other's concurrent save.
@Suite struct StoreLockTests {
    @Test func aConcurrentSaveNeverBringsARevokedControllerBack() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("authorized-controllers.json")
        let key = try NoisePublicKey(bytes: [UInt8](repeating: 9, count: 32))
        for round in 0..<40 {
            let revoker = AuthorizedControllersStore(file: file)
            let toucher = AuthorizedControllersStore(file: file)
            try await revoker.authorize(name: "c\(round)", publicKey: key, at: Date())
            async let revoked = revoker.revoke(name: "c\(round)")
            async let touched: Void = {
                for _ in 0..<5 { try await toucher.markSeen(publicKey: key, at: Date()) }
            }()
            _ = try await (revoked, touched)
            #expect(try await AuthorizedControllersStore(file: file).controller(withKey: key) == nil, "round \(round): the revoked key came back")
        }
    }
}
