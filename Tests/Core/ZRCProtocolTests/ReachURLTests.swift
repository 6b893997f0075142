import Testing
@testable import ZRCProtocol

@Suite struct ReachURLTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let scheme: ReachURL.Scheme
        let endpoint: String
        let credentials: ReachURL.Credentials
        let overTCP: Bool
        var testDescription: String { text }
    }

    @Test(arguments: [
        Case(text: "mqtt://broker.example", scheme: .mqtt, endpoint: "broker.example:1883", credentials: .none, overTCP: false),
        Case(text: "mqtt://zrc:s3cret@10.0.0.1:8883", scheme: .mqtt, endpoint: "10.0.0.1:8883",
             credentials: .password(user: "zrc", password: "s3cret"), overTCP: false),
        Case(text: "stun:stun.example", scheme: .stun, endpoint: "stun.example:3478", credentials: .none, overTCP: false),
        Case(text: "stun:[2001:db8::1]:3479", scheme: .stun, endpoint: "[2001:db8::1]:3479", credentials: .none, overTCP: false),
        Case(text: "turn://u:p%40ss@turn.example:3478?transport=tcp", scheme: .turn, endpoint: "turn.example:3478",
             credentials: .password(user: "u", password: "p@ss"), overTCP: true),
        Case(text: "turn:turn.example?secret=abc&transport=udp", scheme: .turn, endpoint: "turn.example:3478",
             credentials: .sharedSecret("abc"), overTCP: false),
    ])
    func parses(_ expected: Case) throws {
        let url = try ReachURL(parsing: expected.text, expecting: [.mqtt, .stun, .turn])
        #expect(url.scheme == expected.scheme)
        #expect(url.endpoint == expected.endpoint)
        #expect(url.credentials == expected.credentials)
        #expect(url.overTCP == expected.overTCP)
        #expect(url.text == expected.text)
    }

    @Test(arguments: [
        ("http://example.com", "is not a"),
        ("mqtts://host?ca=relative/ca.pem", "unknown option"),
        ("stun://u:p@stun.example", "no credentials"),
        ("mqtt://", "expected host[:port]"),
        ("mqtt://host:99999", "expected host[:port]"),
        ("turn://u:p@host?secret=x", "not both"),
        ("turn://u:p@host?foo=bar", "unknown option"),
        ("mqtt://host name", "printable ASCII"),
        ("turn://user@host", "user:password"),
    ])
    func refuses(text: String, words: String) {
        do {
            let url = try ReachURL(parsing: text, expecting: [.mqtt, .stun, .turn])
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    @Test func schemeMustMatchTheField() {
        #expect(throws: WireError.self) { try ReachURL(parsing: "stun:stun.example", expecting: [.turn]) }
    }

    /// Credentials never appear in what users and logs see.
    @Test(arguments: ["turn://zrc:hunter2@relay.example:3478", "turn:relay.example?secret=hunter2&transport=tcp",
                      "mqtt://zrc:hunter2@broker.example"])
    func credentialsAreRedacted(text: String) throws {
        #expect(!ReachURL.redacted(text).contains("hunter2"))
        let url = try ReachURL(parsing: text, expecting: [.mqtt, .turn])
        #expect(!url.description.contains("hunter2"))
        #expect(!url.endpoint.contains("hunter2"))
    }

    @Test(arguments: [
        (TransportPath.tcp(address: "10.0.0.5:7420"), "direct TCP 10.0.0.5:7420"),
        (.iceDirect(local: .serverReflexive, remote: .host, remoteEndpoint: "1.2.3.4:5"), "ICE direct (srflx)"),
        (.iceDirect(local: .host, remote: .host, remoteEndpoint: "10.0.0.5:5"), "ICE direct (host)"),
        (.relay(server: "turn.example:3478"), "relay via turn.example:3478"),
    ])
    func pathsAreNamed(path: TransportPath, name: String) {
        #expect(path.description == name)
    }

    /// A relay in a configuration file needs its credentials; an invite names relays without.
    @Test func aConfiguredRelayNeedsCredentials() throws {
        let bare = try ReachURL(parsing: "turn:turn.example", expecting: [.turn])
        #expect(bare.credentials == .none)
        let error = #expect(throws: WireError.self) { try bare.requiringRelayCredentials() }
        #expect(error?.message.contains("needs credentials") == true)
        #expect(throws: Never.self) { try ReachURL(parsing: "turn:turn.example?secret=s", expecting: [.turn]).requiringRelayCredentials() }
    }

    @Test func mqttsIsMQTTOverTLSWithItsOwnPortAndCA() throws {
        let url = try ReachURL(parsing: "mqtts://zrc:pw@broker.example?ca=/etc/zrc/ca%20file.pem", expecting: [.mqtt])
        #expect(url.tls && url.port == 8883 && url.caFile == "/etc/zrc/ca file.pem")
        #expect(url.withoutCredentials.text == "mqtts://broker.example:8883", "an invite names neither the login nor the local CA file")
        #expect(try ReachURL(parsing: "mqtt://broker.example", expecting: [.mqtt]).port == 1883)
    }

    /// Time-limited credentials from the host go into the relay's URL, colons in the username
    /// included (coturn's `expiry:label`).
    @Test func aRelayTakesTheHostsCredentials() throws {
        let relay = try ReachURL(parsing: "turn://198.51.100.7:3478?transport=tcp", expecting: [.turn])
        let withCredentials = try #require(relay.with(RelayCredential(relay: "198.51.100.7:3478", username: "1764374400:zrc-ab",
                                                                      password: "a+b/c=", expiresAt: 1_764_374_400)))
        #expect(withCredentials.credentials == .password(user: "1764374400:zrc-ab", password: "a+b/c="))
        #expect(withCredentials.overTCP && withCredentials.endpoint == "198.51.100.7:3478")
    }
}
