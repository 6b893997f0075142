import Testing
import ZRCWebViewer

/// The file routes behind the gate: an upload needs the page's cookie and own Origin (a POST any
/// site could send otherwise), a download the cookie and no cross-site fetch; both only pass a
/// ticket on, which the viewer checks (one use, 60 s).
@Suite struct LocalPageGateFilesTests {
    static let own = "http://127.0.0.1:43119"
    static let host = ("Host", "127.0.0.1:43119")

    func request(_ method: String, _ target: String, _ headers: [(String, String)]) -> PageRequest {
        PageRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    func session() -> (LocalPageGate, String) {
        var gate = LocalPageGate(port: 43119, token: Array(0..<16), files: ["/"])
        let decision = gate.decide(request("POST", "/session", [Self.host, ("Origin", Self.own), ("X-ZRC-Token", TokenHex.encode(Array(0..<16)))]),
                                   freshCookie: { Array(repeating: 7, count: 16) })
        guard case .issueCookie(let setCookie) = decision else { return (gate, "") }
        return (gate, String(setCookie.prefix { $0 != ";" }))
    }

    @Test func thePageUploadsAndDownloadsWithItsTicket() {
        var (gate, cookie) = session()
        #expect(gate.decide(request("POST", "/files/upload/abc", [Self.host, ("Origin", Self.own), ("Cookie", cookie), ("Content-Length", "1099511627776")]),
                            freshCookie: { [] }) == .upload(ticket: "abc"))
        #expect(gate.decide(request("GET", "/files/download/abc", [Self.host, ("Cookie", cookie), ("Sec-Fetch-Site", "same-origin")]),
                            freshCookie: { [] }) == .download(ticket: "abc"))
    }

    @Test(arguments: [
        ("POST", "/files/upload/t", [("Origin", own)], LocalPageGate.Decision.refuse(status: 403, reason: .noCookie), "an upload without the cookie"),
        ("POST", "/files/upload/t", [("Origin", "http://evil.example"), ("Cookie", "COOKIE")], .refuse(status: 403, reason: .badOrigin), "another site posting a file"),
        ("POST", "/files/upload/t", [("Cookie", "COOKIE")], .refuse(status: 403, reason: .badOrigin), "an upload without Origin"),
        ("GET", "/files/upload/t", [("Origin", own), ("Cookie", "COOKIE")], .refuse(status: 405, reason: .badMethod), "GET of the upload path"),
        ("GET", "/files/download/t", [], .refuse(status: 403, reason: .noCookie), "a download without the cookie (another local user)"),
        ("GET", "/files/download/t", [("Cookie", "COOKIE"), ("Sec-Fetch-Site", "cross-site")], .refuse(status: 403, reason: .crossSite), "a link on another site"),
        ("POST", "/files/download/t", [("Origin", own), ("Cookie", "COOKIE")], .refuse(status: 405, reason: .badMethod), "POST to the download path"),
    ] as [(String, String, [(String, String)], LocalPageGate.Decision, String)])
    func everyOtherCallerIsRefused(method: String, target: String, headers: [(String, String)], expected: LocalPageGate.Decision, why: String) {
        var (gate, cookie) = session()
        let filled = headers.map { ($0.0, $0.1 == "COOKIE" ? cookie : $0.1) }
        #expect(gate.decide(request(method, target, [Self.host] + filled), freshCookie: { [] }) == expected, "\(why)")
    }

    @Test func anUploadBodyIsBoundedByTheLargestFileNotTheAPIsLimit() {
        let gate = LocalPageGate(port: 43119, token: Array(0..<16), files: ["/"])
        #expect(gate.bodyLimit(path: "/files/upload/t") == 1 << 44)
        #expect(gate.bodyLimit(path: "/files/download/t") == LocalPageGate.maximumBodyBytes)
    }
}
