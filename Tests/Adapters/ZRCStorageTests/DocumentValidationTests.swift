import Foundation
import Testing
import ZRCProtocol
@testable import ZRCStorage

private let key = String(repeating: "ab", count: 32)

/// Each damaged document must be refused with a message naming the file and the offending field.
@Suite struct DocumentValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let json: String
        let field: String
        let reason: String
        var testDescription: String { "\(field): \(reason)" }
    }

    static let knownHostCases: [Case] = [
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"zz","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z"}]}"#,
             field: "hosts[0].publicKey", reason: "64 hexadecimal"),
        Case(json: #"{"version":1,"hosts":[{"name":"","hostName":"h","publicKey":"\#(key)","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z"}]}"#,
             field: "hosts[0].name", reason: "must not be empty"),
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"\#(key)","addresses":[],"pairedAt":"2026-01-01T00:00:00Z"}]}"#,
             field: "hosts[0].addresses", reason: "1 to 8"),
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"\#(key)","addresses":["h:99999"],"pairedAt":"2026-01-01T00:00:00Z"}]}"#,
             field: "hosts[0].addresses", reason: "not host:port"),
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"\#(key)","addresses":["h:1"]}]}"#,
             field: "hosts[0].pairedAt", reason: "missing"),
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"\#(key)","addresses":["h:1"],"pairedAt":"yesterday"}]}"#,
             field: "hosts[0].pairedAt", reason: "date"),
        Case(json: #"{"version":1,"hosts":[{"name":"a","hostname":"h","publicKey":"\#(key)","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z"}]}"#,
             field: "hosts[0].hostname", reason: "unknown field"),
        Case(json: #"{"version":2,"hosts":[]}"#, field: "version", reason: "newer ZRC"),
        Case(json: #"{"version":1,"hosts":{}}"#, field: "hosts", reason: "array"),
        Case(json: #"{"version":1,"hosts":[],"extra":true}"#, field: "extra", reason: "unknown field"),
    ]

    @Test(arguments: knownHostCases)
    func damagedKnownHostsAreRefusedNamingTheField(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(testCase.json, to: "known-hosts.json")
        let error = try #require(throws: StorageError.self) { try DocumentFile.load(KnownHostsDocument.self, from: file) }
        #expect(error.kind == .invalid)
        #expect(error.field == testCase.field)
        #expect(error.description.contains(file.path))
        #expect(error.description.contains(testCase.reason), "\(error.description)")
    }

    @Test(arguments: [
        ("not json at all", "not valid JSON"),
        ("{\"version\":1,\"hosts\":[", "not valid JSON"),
        ("", "not valid JSON"),
    ])
    func syntaxErrorsSayTheFileIsNotJSON(text: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(text, to: "known-hosts.json")
        let error = try #require(throws: StorageError.self) { try DocumentFile.load(KnownHostsDocument.self, from: file) }
        #expect(error.description.contains(reason))
        #expect(error.description.contains("move it aside"))
    }

    @Test(arguments: [
        (#"{"inviteLifetimeSeconds": 5}"#, "inviteLifetimeSeconds", "between 30 and 86400"),
        (#"{"listen": "nowhere:"}"#, "listen", "host:port"),
        (#"{"keyStore": "vault"}"#, "keyStore", "not one of: keyring, file"),
        (#"{"keepaliveIntervalSeconds": 10, "deadPeerTimeoutSeconds": 5}"#, "deadPeerTimeoutSeconds", "longer than"),
        (#"{"inviteLifetime": 60}"#, "inviteLifetime", "unknown field"),
        (#"{"approvalTimeoutSeconds": 5}"#, "approvalTimeoutSeconds", "between 10 and 600"),
        (#"{"acceptSessionKey": "ctrl+hyper+y"}"#, "acceptSessionKey", "not a modifier"),
        (#"{"refuseSessionKey": "ctrl+alt+shift+End"}"#, "refuseSessionKey", "already the combination"),
        (#"{"endSessionsKey": "ctrl+alt+shift+Y"}"#, "acceptSessionKey", "already the combination"),
    ])
    func badHostConfigIsRefused(json: String, field: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(json, to: "host.json")
        let error = try #require(throws: StorageError.self) { try DocumentFile.load(HostConfig.self, from: file) }
        #expect(error.field == field)
        #expect(error.description.contains(reason), "\(error.description)")
    }

    @Test func emptyHostConfigMeansDefaults() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("{}", to: "host.json")
        let config = try DocumentFile.load(HostConfig.self, from: file)
        #expect(config == HostConfig())
        #expect(HostConfig().inviteLifetimeSeconds == 600)
    }

    @Test func duplicateNamesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let entry = #"{"name":"a","publicKey":"\#(key)","pairedAt":"2026-01-01T00:00:00Z"}"#
        let file = try directory.write(#"{"version":1,"controllers":[\#(entry),\#(entry)]}"#, to: "authorized-controllers.json")
        let error = try #require(throws: StorageError.self) { try DocumentFile.load(AuthorizedControllersDocument.self, from: file) }
        #expect(error.field == "controllers")
        #expect(error.description.contains("entry 1 repeats"))
    }
}
