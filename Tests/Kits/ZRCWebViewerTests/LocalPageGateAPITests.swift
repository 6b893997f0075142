import Testing
import ZRCWebViewer

/// The app's API behind the gate (`zrc-ctl app`): only the page that traded the token, from its
/// own origin, with POST; a viewer's server has no API at all; bodies are bounded by path.
@Suite struct LocalPageGateAPITests {
    static let port = 43118
    static let own = "http://127.0.0.1:43118"
    static let host = ("Host", "127.0.0.1:43118")

    func request(_ method: String, _ target: String, _ headers: [(String, String)]) -> PageRequest {
        PageRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    /// An app gate and the cookie a page got from it.
    func session() -> (LocalPageGate, String) {
        var gate = LocalPageGate(port: Self.port, token: Array(0..<16), files: ["/"], servesAPI: true)
        let decision = gate.decide(request("POST", "/session", [Self.host, ("Origin", Self.own), ("X-ZRC-Token", TokenHex.encode(Array(0..<16)))]),
                                   freshCookie: { Array(repeating: 9, count: 16) })
        guard case .issueCookie(let setCookie) = decision else { return (gate, "") }
        return (gate, String(setCookie.prefix { $0 != ";" }))
    }

    @Test func thePageWithItsCookieCallsTheAPI() {
        var (gate, cookie) = session()
        #expect(gate.decide(request("POST", "/api/devices", [Self.host, ("Origin", Self.own), ("Cookie", cookie)]), freshCookie: { [] })
                == .api(path: "/api/devices"))
    }

    @Test(arguments: [
        ("POST", [("Origin", own)], LocalPageGate.Decision.refuse(status: 403, reason: .noCookie), "no cookie (another local user, a script)"),
        ("POST", [("Origin", "http://evil.example"), ("Cookie", "COOKIE")], .refuse(status: 403, reason: .badOrigin), "another site's page"),
        ("POST", [("Cookie", "COOKIE")], .refuse(status: 403, reason: .badOrigin), "no Origin"),
        ("POST", [("Origin", "http://localhost:43118"), ("Cookie", "COOKIE")], .refuse(status: 403, reason: .badOrigin), "another name for this server"),
        ("POST", [("Origin", own), ("Cookie", "zrc-viewer-43118=09090909090909090909090909090908")], .refuse(status: 403, reason: .noCookie), "a guessed cookie"),
        ("GET", [("Origin", own), ("Cookie", "COOKIE")], .refuse(status: 405, reason: .badMethod), "GET (an image tag, a link)"),
    ] as [(String, [(String, String)], LocalPageGate.Decision, String)])
    func everyOtherCallerIsRefused(method: String, headers: [(String, String)], expected: LocalPageGate.Decision, why: String) {
        var (gate, cookie) = session()
        let filled = headers.map { ($0.0, $0.1 == "COOKIE" ? cookie : $0.1) }
        #expect(gate.decide(request(method, "/api/settings/set", [Self.host] + filled), freshCookie: { [] }) == expected, "\(why)")
    }

    @Test func aRequestNamingAnotherHostIsRefusedEvenWithTheCookie() {
        var (gate, cookie) = session()
        #expect(gate.decide(request("POST", "/api/forget", [("Host", "evil.example:43118"), ("Origin", "http://evil.example:43118"), ("Cookie", cookie)]),
                            freshCookie: { [] }) == .refuse(status: 403, reason: .badHost))
    }

    @Test func aViewersServerHasNoAPI() {
        var gate = LocalPageGate(port: Self.port, token: Array(0..<16), files: ["/"])
        #expect(gate.decide(request("POST", "/api/devices", [Self.host, ("Origin", Self.own)]), freshCookie: { [] })
                == .refuse(status: 405, reason: .badMethod))
        #expect(gate.bodyLimit(path: "/api/settings/set") == LocalPageGate.maximumBodyBytes)
    }

    @Test func bodiesAreBoundedByPath() {
        var (gate, cookie) = session()
        #expect(gate.bodyLimit(path: "/api/settings/set") == LocalPageGate.maximumApiBodyBytes)
        #expect(gate.bodyLimit(path: "/session") == LocalPageGate.maximumBodyBytes)
        let large = [Self.host, ("Origin", Self.own), ("Cookie", cookie), ("Content-Length", "\(LocalPageGate.maximumApiBodyBytes + 1)")]
        #expect(gate.decide(request("POST", "/api/settings/set", large), freshCookie: { [] }) == .refuse(status: 413, reason: .bodyTooLarge))
        let fits = [Self.host, ("Origin", Self.own), ("Cookie", cookie), ("Content-Length", "\(LocalPageGate.maximumApiBodyBytes)")]
        #expect(gate.decide(request("POST", "/api/settings/set", fits), freshCookie: { [] }) == .api(path: "/api/settings/set"))
        let toSession = [Self.host, ("Origin", Self.own), ("Content-Length", "\(LocalPageGate.maximumBodyBytes + 1)")]
        #expect(gate.decide(request("POST", "/session", toSession), freshCookie: { [] }) == .refuse(status: 413, reason: .bodyTooLarge))
    }
}
