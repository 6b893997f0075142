import Foundation
import Testing
import ZRCXTestSupport
import ZRCWebTesting

/// The browser viewer's local server under attack from the sources that can reach 127.0.0.1: raw
/// HTTP as another local user or a DNS-rebound page would send it, a page from another origin in
/// the same browser, and the page itself (which fetches from no other host).
@Suite(.serialized) struct ViewerInBrowserSecurityTests {
    static let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]

    @Test func rawRequestsWithoutTheRightHostOriginTokenOrCookieAreRefused() async throws {
        let web = try await WebViewerRig(openPage: false)
        let port = web.port, own = "http://127.0.0.1:\(port)"
        let token = String(web.url.split(separator: "=").last ?? "")

        // The page shell is open to anyone naming this server, with the strict headers.
        let page = try await RawHTTP.exchange(port: port, ["GET / HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
        #expect(page.status == 200 && page.body.contains("/app.js"), "\(page.head)")
        #expect(page.header("Content-Security-Policy")?.contains("connect-src 'self'") == true)
        #expect(page.header("Content-Security-Policy")?.contains("unsafe-inline") == false)
        #expect(page.header("Access-Control-Allow-Origin") == nil, "no CORS header")
        #expect(page.header("X-Frame-Options") == "DENY" && page.header("Referrer-Policy") == "no-referrer")

        // DNS rebinding: a name that resolves here, and other ports.
        for host in ["evil.example:\(port)", "127.0.0.1:1", "localhost.evil.example:\(port)"] {
            let answer = try await RawHTTP.exchange(port: port, ["GET / HTTP/1.1", "Host: \(host)", "Connection: close"])
            #expect(answer.status == 403, "Host \(host): \(answer.head)")
        }
        // The socket without a cookie, with a foreign Origin, or with a forged cookie.
        let noCookie = try await RawHTTP.exchange(port: port, ["GET /socket HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)"] + Self.upgrade)
        #expect(noCookie.status == 403, "\(noCookie.head)")
        let forged = try await RawHTTP.exchange(port: port, ["GET /socket HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)",
                                                              "Cookie: zrc-viewer-\(port)=\(token)"] + Self.upgrade)
        #expect(forged.status == 403, "the token is not a cookie: \(forged.head)")
        // A wrong token gets no cookie; the right one from a foreign origin neither.
        let wrong = try await RawHTTP.exchange(port: port, ["POST /session HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)",
                                                             "X-ZRC-Token: \(String(repeating: "0", count: 32))", "Content-Length: 0", "Connection: close"])
        #expect(wrong.status == 403 && wrong.header("Set-Cookie") == nil, "\(wrong.head)")
        let foreign = try await RawHTTP.exchange(port: port, ["POST /session HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: http://evil.example",
                                                               "X-ZRC-Token: \(token)", "Content-Length: 0", "Connection: close"])
        #expect(foreign.status == 403 && foreign.header("Set-Cookie") == nil, "\(foreign.head)")
        // The right token from the page's origin: a cookie, which then opens the socket, but only with the page's Origin.
        let good = try await RawHTTP.exchange(port: port, ["POST /session HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)",
                                                            "X-ZRC-Token: \(token)", "Content-Length: 0", "Connection: close"])
        let cookie = try #require(good.header("Set-Cookie"), "\(good.head)")
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let pair = String(cookie.prefix { $0 != ";" })
        let opened = try await RawHTTP.exchange(port: port, ["GET /socket HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: \(own)",
                                                              "Cookie: \(pair)"] + Self.upgrade, timeoutClose: true)
        #expect(opened.status == 101, "\(opened.head)")
        let otherOrigin = try await RawHTTP.exchange(port: port, ["GET /socket HTTP/1.1", "Host: 127.0.0.1:\(port)", "Origin: http://localhost:\(port)",
                                                                   "Cookie: \(pair)"] + Self.upgrade)
        #expect(otherOrigin.status == 403, "\(otherOrigin.head)")
        // Too large a head, and too many fields.
        let big = try await RawHTTP.exchange(port: port, ["GET / HTTP/1.1", "Host: 127.0.0.1:\(port)", "X-Big: \(String(repeating: "a", count: 10000))",
                                                           "Connection: close"])
        #expect(big.status >= 400, "\(big.head)")
        let many = try await RawHTTP.exchange(port: port, ["GET / HTTP/1.1", "Host: 127.0.0.1:\(port)"] + (0..<40).map { "X-F\($0): 1" } + ["Connection: close"])
        #expect(many.status >= 400, "\(many.head)")
        await web.close()
    }

    @Test func aPageFromAnotherOriginCannotOpenTheSocketAndThePageFetchesNothingElsewhere() async throws {
        let web = try await WebViewerRig()
        // localhost:PORT is another origin than 127.0.0.1:PORT (and has no cookie there).
        let result = try await web.browser.call("foreignSocket", ["foreign_url": "http://localhost:\(web.port)/",
                                                                  "socket_url": "ws://127.0.0.1:\(web.port)/socket"])
        #expect(result["value"] as? String == "refused", "\(result)")
        let requests = try await web.browser.call("requests")
        let urls = requests["urls"] as? [String] ?? []
        #expect(!urls.isEmpty && urls.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(web.port)/") || $0.hasPrefix("http://localhost:\(web.port)/") },
                "the page asked only its own server: \(urls)")
        await web.close()
    }
}
