/// The servers a side uses to reach its peer, as written in `host.json`, `controller.json` and
/// invites:
/// - rendezvous: `mqtt://[user:password@]host[:port]` (1883 by default);
/// - STUN: `stun:host[:port]` (3478);
/// - relay: `turn:host[:port][?transport=udp|tcp]` with credentials either as
///   `turn://user:password@host[:port]…` or a coturn REST shared secret, `…?secret=S`
///   (time-limited credentials are derived from it per connection).
public struct ReachURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case mqtt
        case stun
        case turn
    }

    public enum Credentials: Sendable, Hashable {
        case none
        case password(user: String, password: String)
        /// coturn's `static-auth-secret` (TURN REST API).
        case sharedSecret(String)
    }

    public let scheme: Scheme
    public let host: String
    public let port: UInt16
    public let credentials: Credentials
    /// TURN over TCP to the relay (for networks that block UDP); the relayed path is UDP still.
    public let overTCP: Bool
    /// The text it was parsed from.
    public let text: String

    public static let maxTextBytes = 512

    /// The same server without credentials (what an invite may name for a broker: controllers
    /// must not learn the host's login).
    public var withoutCredentials: ReachURL {
        guard credentials != .none, let plain = try? ReachURL(parsing: "\(scheme.rawValue)://\(endpoint)\(overTCP ? "?transport=tcp" : "")",
                                                               expecting: [scheme]) else { return self }
        return plain
    }

    /// `host:port`, safe to show: never the credentials.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    public var description: String { "\(scheme.rawValue)://\(endpoint)\(overTCP ? "?transport=tcp" : "")" }

    /// Parses one URL; `expecting` limits which schemes a field takes.
    public init(parsing text: String, expecting schemes: Set<Scheme>) throws(WireError) {
        guard text.utf8.count <= Self.maxTextBytes, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw WireError(.invalidValue, "a server URL must be at most \(Self.maxTextBytes) printable ASCII characters without spaces")
        }
        guard let colon = text.firstIndex(of: ":"), let scheme = Scheme(rawValue: String(text[..<colon]).lowercased()),
              schemes.contains(scheme) else {
            let names = schemes.map(\.rawValue).sorted().joined(separator: ", ")
            throw WireError(.invalidValue, "`\(Self.redacted(text))` is not a \(names) URL")
        }
        var rest = text[text.index(after: colon)...]
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var credentials = Credentials.none
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let separator = userInfo.firstIndex(of: ":") else {
                throw WireError(.invalidValue, "`\(Self.redacted(text))`: credentials must be user:password")
            }
            credentials = .password(user: Self.percentDecoded(userInfo[..<separator]),
                                    password: Self.percentDecoded(userInfo[userInfo.index(after: separator)...]))
        }
        let defaultPort: UInt16 = scheme == .mqtt ? 1883 : 3478
        guard let hostPort = HostPort(parsing: String(rest), defaultPort: defaultPort) else {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: expected host[:port] (IPv6 as [addr]:port)")
        }
        var overTCP = false
        for item in query.split(separator: "&") where !item.isEmpty {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            switch (pair.first ?? "", pair.count == 2 ? pair[1] : nil) {
            case ("transport", "udp"?) where scheme == .turn: overTCP = false
            case ("transport", "tcp"?) where scheme == .turn: overTCP = true
            case ("secret", let secret?) where scheme == .turn && !secret.isEmpty:
                guard case .none = credentials else {
                    throw WireError(.invalidValue, "`\(Self.redacted(text))`: give either user:password or secret=, not both")
                }
                credentials = .sharedSecret(Self.percentDecoded(Substring(secret)))
            default:
                throw WireError(.invalidValue, "`\(Self.redacted(text))`: unknown option `\(TerminalSafeText.sanitized(String(item.prefix(40))))`")
            }
        }
        if scheme == .turn, case .none = credentials {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: a TURN relay needs credentials (turn://user:password@host or ?secret=)")
        }
        if scheme == .stun, credentials != .none {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: STUN takes no credentials")
        }
        self.scheme = scheme
        host = hostPort.host
        port = hostPort.port
        self.credentials = credentials
        self.overTCP = overTCP
        self.text = text
    }

    /// The URL with any password or secret replaced, for messages and logs.
    public static func redacted(_ text: String) -> String {
        var shown = Substring(text)
        var result = ""
        // user:password@ → ***@
        if let at = shown.lastIndex(of: "@"), let colon = shown.firstIndex(of: ":"), colon < at {
            var authorityStart = shown.index(after: colon)
            if shown[authorityStart...].hasPrefix("//") { authorityStart = shown.index(authorityStart, offsetBy: 2) }
            result += shown[..<authorityStart] + "***"
            shown = shown[at...]
        }
        // secret=value → secret=***
        while let mark = shown.firstIndex(of: "=") {
            let key = shown[..<mark]
            result += shown[...mark]
            shown = shown[shown.index(after: mark)...]
            if key.hasSuffix("secret") {
                result += "***"
                shown = shown[(shown.firstIndex(of: "&") ?? shown.endIndex)...]
            }
        }
        result += shown
        return TerminalSafeText.sanitized(result)
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            let digits = [iterator.next(), iterator.next()].compactMap { $0 }
            if digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes += [byte] + digits  // not an escape: kept as written
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
