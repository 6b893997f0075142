import Testing
import ZRCWebViewer

/// The loopback server's gate, attacked from every source a browser or a local user has: another
/// site's page (wrong Origin, no cookie), a DNS-rebound name (wrong Host), a guessed token, a
/// request that is too large, and a page that never got the token.
@Suite struct LocalPageGateTests {
    static let port = 43117
    static let token: [UInt8] = Array(0..<16)
    static let files: Set<String> = ["/", "/app.js", "/style.css"]
    static var tokenHex: String { TokenHex.encode(token) }
    static let own = "http://127.0.0.1:43117"

    func gate() -> LocalPageGate { LocalPageGate(port: Self.port, token: Self.token, files: Self.files) }

    func request(_ method: String, _ target: String, _ headers: [(String, String)]) -> PageRequest {
        PageRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    /// A browser session: exchange the token, then open the socket with the cookie.
    func cookie(from gate: inout LocalPageGate) -> String {
        let decision = gate.decide(request("POST", "/session", [("Host", "127.0.0.1:\(Self.port)"), ("Origin", Self.own),
                                                               ("X-ZRC-Token", Self.tokenHex)]), freshCookie: { Array(repeating: 7, count: 16) })
        guard case .issueCookie(let setCookie) = decision else {
            Issue.record("the token was refused: \(decision)")
            return ""
        }
        return String(setCookie.prefix { $0 != ";" })
    }

    @Test func thePageAndItsFilesNeedNoCookieButTheSocketDoes() {
        var gate = gate()
        #expect(gate.decide(request("GET", "/", [("Host", "127.0.0.1:\(Self.port)")]), freshCookie: { [] }) == .file(path: "/"))
        #expect(gate.decide(request("GET", "/app.js?v=1", [("Host", "localhost:\(Self.port)")]), freshCookie: { [] }) == .file(path: "/app.js"))
        #expect(gate.decide(request("GET", "/socket", [("Host", "127.0.0.1:\(Self.port)"), ("Origin", Self.own)]), freshCookie: { [] })
                == .refuse(status: 403, reason: .noCookie))
        let cookie = cookie(from: &gate)
        #expect(cookie.hasPrefix("zrc-viewer-\(Self.port)="))
        #expect(gate.decide(request("GET", "/socket", [("Host", "127.0.0.1:\(Self.port)"), ("Origin", Self.own), ("Cookie", "a=b; \(cookie)")]),
                            freshCookie: { [] }) == .upgrade)
    }

    @Test func theCookieIsHttpOnlyStrictAndNamedAfterThePort() {
        var gate = gate()
        let decision = gate.decide(request("POST", "/session", [("Host", "[::1]:\(Self.port)"), ("Origin", "http://[::1]:\(Self.port)"),
                                                               ("X-ZRC-Token", Self.tokenHex)]), freshCookie: { Array(repeating: 0xAB, count: 16) })
        #expect(decision == .issueCookie(setCookie: "zrc-viewer-\(Self.port)=\(String(repeating: "ab", count: 16)); Path=/; HttpOnly; SameSite=Strict"))
    }

    @Test(arguments: [
        ("evil.example:43117", "DNS rebinding: a name that resolves to 127.0.0.1"),
        ("127.0.0.1:8080", "another port"),
        ("127.0.0.1", "no port"),
        ("127.0.0.2:43117", "another loopback address"),
        ("", "empty"),
    ])
    func aRequestNamingAnotherHostIsRefused(host: String, why: String) {
        var gate = gate()
        #expect(gate.decide(request("GET", "/", [("Host", host)]), freshCookie: { [] }) == .refuse(status: 403, reason: .badHost), "\(why)")
        #expect(gate.decide(request("POST", "/session", [("Host", host), ("Origin", "http://\(host)"), ("X-ZRC-Token", Self.tokenHex)]),
                            freshCookie: { [1] }) == .refuse(status: 403, reason: .badHost), "\(why)")
    }

    @Test func twoHostHeadersAreRefused() {
        var gate = gate()
        #expect(gate.decide(request("GET", "/", [("Host", "127.0.0.1:\(Self.port)"), ("Host", "evil.example")]), freshCookie: { [] })
                == .refuse(status: 403, reason: .badHost))
    }

    @Test(arguments: [nil, "http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1:43117", "http://localhost:43117"])
    func theSocketNeedsThePagesOwnOrigin(origin: String?) {
        var gate = gate()
        let cookie = cookie(from: &gate)
        var headers = [("Host", "127.0.0.1:\(Self.port)"), ("Cookie", cookie)]
        if let origin { headers.append(("Origin", origin)) }
        // localhost's page is its own origin only when the request names localhost.
        #expect(gate.decide(request("GET", "/socket", headers), freshCookie: { [] }) == .refuse(status: 403, reason: .badOrigin))
    }

    @Test func aWrongTokenOrAForgedCookieGetsNothing() {
        var gate = gate()
        let host = ("Host", "127.0.0.1:\(Self.port)"), origin = ("Origin", Self.own)
        var wrong = Self.token
        wrong[15] ^= 1
        for offered in [TokenHex.encode(wrong), "", "zz", String(Self.tokenHex.prefix(30)), Self.tokenHex + "00"] {
            #expect(gate.decide(request("POST", "/session", [host, origin, ("X-ZRC-Token", offered)]), freshCookie: { [9] })
                    == .refuse(status: 403, reason: .badToken), "\(offered)")
        }
        #expect(gate.decide(request("POST", "/session", [host, origin]), freshCookie: { [9] }) == .refuse(status: 403, reason: .badToken))
        // A cookie never issued, or the token itself as the cookie.
        for forged in ["zrc-viewer-\(Self.port)=\(String(repeating: "07", count: 16))", "zrc-viewer-\(Self.port)=\(Self.tokenHex)"] {
            #expect(gate.decide(request("GET", "/socket", [host, origin, ("Cookie", forged)]), freshCookie: { [] })
                    == .refuse(status: 403, reason: .noCookie))
        }
        // Another viewer's cookie (another port) is not this one's.
        let mine = cookie(from: &gate)
        let value = mine.split(separator: "=")[1]
        #expect(gate.decide(request("GET", "/socket", [host, origin, ("Cookie", "zrc-viewer-1=\(value)")]), freshCookie: { [] })
                == .refuse(status: 403, reason: .noCookie))
    }

    @Test func theTokenNeedsPOSTFromThePageItself() {
        var gate = gate()
        let host = ("Host", "127.0.0.1:\(Self.port)"), token = ("X-ZRC-Token", Self.tokenHex)
        #expect(gate.decide(request("GET", "/session", [host, ("Origin", Self.own), token]), freshCookie: { [] })
                == .refuse(status: 405, reason: .badMethod))
        #expect(gate.decide(request("POST", "/session", [host, ("Origin", "http://evil.example"), token]), freshCookie: { [] })
                == .refuse(status: 403, reason: .badOrigin))
    }

    @Test func oversizedRequestsAndUnknownPathsAreRefused() {
        var gate = gate()
        let host = ("Host", "127.0.0.1:\(Self.port)")
        let many = (0..<40).map { ("X-Filler-\($0)", "x") }
        #expect(gate.decide(request("GET", "/", [host] + many), freshCookie: { [] }) == .refuse(status: 431, reason: .tooManyHeaders))
        #expect(gate.decide(request("GET", "/", [host, ("X-Big", String(repeating: "a", count: 9000))]), freshCookie: { [] })
                == .refuse(status: 431, reason: .headTooLarge))
        #expect(gate.decide(request("POST", "/session", [host, ("Content-Length", "5000")]), freshCookie: { [] })
                == .refuse(status: 413, reason: .bodyTooLarge))
        #expect(gate.decide(request("GET", "/../etc/passwd", [host]), freshCookie: { [] }) == .refuse(status: 404, reason: .notFound))
        #expect(gate.decide(request("DELETE", "/", [host]), freshCookie: { [] }) == .refuse(status: 405, reason: .badMethod))
    }

    @Test func onlyTheNewestEightCookiesAreHonoured() {
        var gate = gate()
        var counter: UInt8 = 0
        func issue() -> String {
            counter += 1
            let decision = gate.decide(request("POST", "/session", [("Host", "127.0.0.1:\(Self.port)"), ("Origin", Self.own),
                                                                   ("X-ZRC-Token", Self.tokenHex)]),
                                       freshCookie: { Array(repeating: counter, count: 16) })
            guard case .issueCookie(let value) = decision else { return "" }
            return String(value.prefix { $0 != ";" })
        }
        let first = issue()
        for _ in 0..<LocalPageGate.maximumCookies { _ = issue() }
        let last = issue()
        let socket = { (cookie: String) in
            gate.decide(self.request("GET", "/socket", [("Host", "127.0.0.1:\(Self.port)"), ("Origin", Self.own), ("Cookie", cookie)]), freshCookie: { [] })
        }
        #expect(socket(first) == .refuse(status: 403, reason: .noCookie))
        #expect(socket(last) == .upgrade)
    }

    @Test func thePageURLCarriesTheTokenInItsFragmentOnly() {
        let url = gate().pageURL
        #expect(url == "http://127.0.0.1:\(Self.port)/#token=\(Self.tokenHex)")
    }
}
