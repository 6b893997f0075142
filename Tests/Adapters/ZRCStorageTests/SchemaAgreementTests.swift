import Foundation
import Testing
import ZRCProtocol
import ZRCStorage
import ZRCTestSupport

/// What ZRC writes must validate against the published schemas in Schemas/, and what the schemas
/// reject ZRC must reject too. Checked with an independent validator (python3-jsonschema).
@Suite struct SchemaAgreementTests {
    static let repository = Checkout.root

    func schemaAccepts(_ schema: String, _ file: URL) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.repository.appendingPathComponent("Tools/validate-json.py").path, schema, file.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!output.contains("Traceback"), "validator crashed (is python3-jsonschema installed? Tools/install-deps.sh --with-test): \(output)")
        return process.terminationStatus == 0
    }

    @Test func writtenTrustStoresMatchTheirSchemas() async throws {
        let directory = try TemporaryDirectory()
        let controllers = AuthorizedControllersStore(file: directory.file("authorized-controllers.json"))
        try await controllers.authorize(name: "laptop", publicKey: publicKey(1), at: Date())
        _ = try await controllers.recordHandshake(publicKey: publicKey(1), timestampMicros: 1_800_000_000_000_000)
        #expect(try schemaAccepts("authorized-controllers", controllers.file))

        let hosts = KnownHostsStore(file: directory.file("known-hosts.json"))
        try await hosts.add(KnownHost(name: "desk", hostName: "desk.local", publicKey: publicKey(2),
                                      addresses: ["192.0.2.1:7420", "[::1]:7420"], pairedAt: Date(), lastSeen: Date(),
                                      rendezvousUrls: ["mqtt://broker.example"], relayUrls: ["turn://u:p@relay.example?transport=tcp"],
                                      stunUrls: ["stun:stun.example:3478"]))
        #expect(try schemaAccepts("known-hosts", hosts.file))
    }

    @Test(arguments: [
        ("host-config", #"{"listen":"0.0.0.0:7420","inviteLifetimeSeconds":600,"keyStore":"file"}"#, true),
        ("host-config", #"{"inviteLifetimeSeconds":10}"#, false),
        ("host-config", #"{"colour":"blue"}"#, false),
        ("host-config", #"{"rendezvousUrls":["mqtt://b.example"],"relayUrls":["turn://u:p@r.example"],"stunUrls":["stun:s.example"],"transportPreference":"direct","lanDiscovery":false}"#, true),
        ("host-config", #"{"transportPreference":"fastest"}"#, false),
        ("host-config", #"{"relayUrls":["stun:s.example"]}"#, false),
        ("controller-config", #"{"controllerName":"me@box"}"#, true),
        ("controller-config", #"{"rendezvousUrls":["mqtts://u:p@b.example:8883?ca=/etc/zrc/ca.pem"],"transportPreference":"relay"}"#, true),
        // A broker login in the clear, to another machine: refused by both.
        ("controller-config", #"{"rendezvousUrls":["mqtt://u:p@b.example:1883"]}"#, false),
        ("host-config", #"{"rendezvousUrls":["mqtt://zrc-host:pw@127.0.0.1:1883"]}"#, true),
        ("host-config", #"{"rendezvousUrls":["mqtt://zrc-host:pw@broker.example"]}"#, false),
        // A relay in a configuration file needs its credentials (an invite's come without).
        ("host-config", #"{"relayUrls":["turn://r.example:3478"]}"#, false),
        ("host-config", #"{"relayUrls":["turn:r.example?secret=s&transport=tcp"]}"#, true),
        ("known-hosts", #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"0000000000000000000000000000000000000000000000000000000000000001","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z","relayUrls":["turn://r.example:3478"],"relayCredentials":[{"relay":"r.example:3478","username":"1764374400:zrc-ab","password":"p","expiresAt":"2026-11-29T00:00:00Z"}]}]}"#, true),
        ("known-hosts", #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"0000000000000000000000000000000000000000000000000000000000000001","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z","relayCredentials":[{"relay":"r.example:3478","username":"","password":"p","expiresAt":"2026-11-29T00:00:00Z"}]}]}"#, false),
        ("controller-config", #"{"rendezvousUrls":["http://b.example"]}"#, false),
        ("controller-config", #"{"controllerName":" lead"}"#, false),
        ("known-hosts", #"{"version":1,"hosts":[{"name":"a","hostName":"h","publicKey":"00","addresses":["h:1"],"pairedAt":"2026-01-01T00:00:00Z"}]}"#, false),
    ])
    func schemaAndLoaderAgree(schema: String, json: String, valid: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(json, to: "doc.json")
        #expect(try schemaAccepts(schema, file) == valid)
        let loaderAccepts: Bool
        switch schema {
        case "host-config": loaderAccepts = (try? DocumentFile.load(HostConfig.self, from: file)) != nil
        case "controller-config": loaderAccepts = (try? DocumentFile.load(ControllerConfig.self, from: file)) != nil
        default: loaderAccepts = (try? DocumentFile.load(KnownHostsDocument.self, from: file)) != nil
        }
        #expect(loaderAccepts == valid)
    }
}
