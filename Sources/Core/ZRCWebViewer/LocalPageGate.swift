import ZRCProtocol

/// Decides every request that reaches the browser viewer's loopback server, the way Jupyter
/// guards its local server: any web page the user visits, and any other local user, can send
/// requests to 127.0.0.1, so nothing but the page shell is served without proof of the token.
///
/// - The token (128 random bits) travels in the URL's fragment, which browsers never send; the
///   page posts it once in a custom header (which a cross-origin page cannot send without a CORS
///   preflight this server never answers) and gets an `HttpOnly; SameSite=Strict` cookie named
///   after the port (cookies are not scoped by port, and several viewers may run at once).
/// - `Host` must name this server exactly (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`):
///   a DNS-rebound name is refused.
/// - The WebSocket upgrade needs the cookie and an `Origin` equal to the page's own origin.
/// - The app's API (`zrc-ctl app`: `POST /api/…`, JSON) needs the same cookie and `Origin`; a
///   server without an API (`view --web`) has none of those paths.
/// - File transfers need the cookie and a ticket (128 random bits, one use) that the viewer gave
///   the page over its WebSocket: an upload (`POST`) also its own `Origin`; a download (`GET`, a
///   navigation that carries no `Origin`) a `Sec-Fetch-Site` of `same-origin` when the browser
///   sends one. The ticket itself is checked by the viewer.
///
/// Sans-IO: requests in, decisions out; randomness comes in as bytes.
public struct LocalPageGate: Sendable {
    /// Limits on what a request may cost before it is refused.
    public static let maximumHeadBytes = 8192
    public static let maximumHeaderCount = 32
    public static let maximumBodyBytes = 1024
    /// An API request's JSON (settings with their URL lists, an invite): more, but still small.
    public static let maximumApiBodyBytes = 64 * 1024
    /// Cookies issued and still honoured (a new browser profile or a cleared cookie asks again).
    public static let maximumCookies = 8

    public let port: Int
    private let token: [UInt8]
    /// The page's files, by path ("/" included).
    private let files: Set<String>
    /// Whether `/api/…` exists here.
    public let servesAPI: Bool
    private var cookies: [[UInt8]] = []

    /// `token`: 16 random bytes, shown to the user in the page's URL (hex). `servesAPI`: the
    /// app's server (`zrc-ctl app`).
    public init(port: Int, token: [UInt8], files: Set<String>, servesAPI: Bool = false) {
        precondition(token.count == 16, "the token is 128 bits")
        self.port = port
        self.token = token
        self.files = files
        self.servesAPI = servesAPI
    }

    /// How large a request's body to `path` may be.
    public func bodyLimit(path: String) -> Int {
        if path.hasPrefix(PagePaths.uploadPrefix) { return Self.maximumUploadBytes }
        return servesAPI && path.hasPrefix(PagePaths.apiPrefix) ? Self.maximumApiBodyBytes : Self.maximumBodyBytes
    }

    /// An upload's body: a file, at most the protocol's largest (its ticket names the exact size,
    /// which the viewer holds the body to as it streams through; nothing is kept whole).
    public static let maximumUploadBytes = Int(FileTransferLimits.maxFileBytes)

    /// The cookie's name: per port, so two viewers on one machine keep their own.
    public var cookieName: String { "zrc-viewer-\(port)" }

    /// The page's address, the token in its fragment.
    public var pageURL: String { "http://127.0.0.1:\(port)/#token=\(TokenHex.encode(token))" }

    /// The hosts a request may name (with the port).
    public var allowedHosts: [String] { ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] }

    /// What to do with a request.
    public enum Decision: Sendable, Equatable {
        /// Serve one of the page's files (open to anyone who passes the Host check).
        case file(path: String)
        /// The token was right: set this cookie (its full `Set-Cookie` value) and answer 204.
        case issueCookie(setCookie: String)
        /// Upgrade to the viewer's WebSocket.
        case upgrade
        /// An API call of the app (`path` starts with `/api/`); its JSON body follows.
        case api(path: String)
        /// Stream the body into the upload with this ticket (the viewer checks the ticket).
        case upload(ticket: String)
        /// Answer with the download of this ticket.
        case download(ticket: String)
        /// Answer with `status` and say no more than `reason.text`.
        case refuse(status: Int, reason: Refusal)
    }

    /// Why a request was refused (each logged once by the server).
    public enum Refusal: String, Sendable, Equatable, CaseIterable {
        case headTooLarge = "request head too large"
        case tooManyHeaders = "too many header fields"
        case bodyTooLarge = "request body too large"
        case badHost = "Host is not this viewer's loopback address (DNS rebinding?)"
        case badOrigin = "Origin is not the page's own"
        case noCookie = "no valid viewer cookie"
        case badToken = "wrong or missing token"
        case crossSite = "a download asked for by another site"
        case badMethod = "method not allowed"
        case notFound = "no such path"

        public var text: String { rawValue }
    }

    /// Decides `request`. `freshCookie` supplies 16 random bytes when a cookie is to be issued.
    public mutating func decide(_ request: PageRequest, freshCookie: () -> [UInt8]) -> Decision {
        if request.headBytes > Self.maximumHeadBytes { return .refuse(status: 431, reason: .headTooLarge) }
        if request.headers.count > Self.maximumHeaderCount { return .refuse(status: 431, reason: .tooManyHeaders) }
        if request.declaredBodyBytes > bodyLimit(path: request.path) { return .refuse(status: 413, reason: .bodyTooLarge) }
        let hosts = request.values(of: "host")
        guard hosts.count == 1, let host = hosts.first, allowedHosts.contains(host.lowercased()) else {
            return .refuse(status: 403, reason: .badHost)
        }
        let path = request.path
        switch path {
        case PagePaths.session:
            guard request.method == "POST" else { return .refuse(status: 405, reason: .badMethod) }
            guard originIsOwn(request, host: host) else { return .refuse(status: 403, reason: .badOrigin) }
            let offered = request.values(of: PagePaths.tokenHeader)
            guard offered.count == 1, let bytes = TokenHex.decode(offered[0]), Self.constantTimeEqual(bytes, token) else {
                return .refuse(status: 403, reason: .badToken)
            }
            let cookie = freshCookie()
            cookies.append(cookie)
            if cookies.count > Self.maximumCookies { cookies.removeFirst(cookies.count - Self.maximumCookies) }
            return .issueCookie(setCookie: "\(cookieName)=\(TokenHex.encode(cookie)); Path=/; HttpOnly; SameSite=Strict")
        case PagePaths.socket:
            guard request.method == "GET" else { return .refuse(status: 405, reason: .badMethod) }
            guard originIsOwn(request, host: host) else { return .refuse(status: 403, reason: .badOrigin) }
            guard hasValidCookie(request) else { return .refuse(status: 403, reason: .noCookie) }
            return .upgrade
        case _ where servesAPI && path.hasPrefix(PagePaths.apiPrefix):
            guard request.method == "POST" else { return .refuse(status: 405, reason: .badMethod) }
            guard originIsOwn(request, host: host) else { return .refuse(status: 403, reason: .badOrigin) }
            guard hasValidCookie(request) else { return .refuse(status: 403, reason: .noCookie) }
            return .api(path: path)
        case _ where path.hasPrefix(PagePaths.uploadPrefix):
            guard request.method == "POST" else { return .refuse(status: 405, reason: .badMethod) }
            guard originIsOwn(request, host: host) else { return .refuse(status: 403, reason: .badOrigin) }
            guard hasValidCookie(request) else { return .refuse(status: 403, reason: .noCookie) }
            return .upload(ticket: String(path.dropFirst(PagePaths.uploadPrefix.count)))
        case _ where path.hasPrefix(PagePaths.downloadPrefix):
            guard request.method == "GET" else { return .refuse(status: 405, reason: .badMethod) }
            let sites = request.values(of: "sec-fetch-site")
            guard sites.allSatisfy({ $0.lowercased() == "same-origin" }) else { return .refuse(status: 403, reason: .crossSite) }
            guard hasValidCookie(request) else { return .refuse(status: 403, reason: .noCookie) }
            return .download(ticket: String(path.dropFirst(PagePaths.downloadPrefix.count)))
        default:
            guard request.method == "GET" || request.method == "HEAD" else { return .refuse(status: 405, reason: .badMethod) }
            guard files.contains(path) else { return .refuse(status: 404, reason: .notFound) }
            return .file(path: path)
        }
    }

    /// `Origin` is exactly the page's own origin (the scheme and the Host the request named).
    private func originIsOwn(_ request: PageRequest, host: String) -> Bool {
        let origins = request.values(of: "origin")
        return origins.count == 1 && origins[0].lowercased() == "http://\(host.lowercased())"
    }

    private func hasValidCookie(_ request: PageRequest) -> Bool {
        for header in request.values(of: "cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingSpaces == cookieName,
                      let value = TokenHex.decode(String(parts[1].trimmingSpaces)) else { continue }
                if cookies.contains(where: { Self.constantTimeEqual($0, value) }) { return true }
            }
        }
        return false
    }

    /// Compares secrets in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
