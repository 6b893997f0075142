/// The servers a side uses to reach its peer, as written in `host.json`, `controller.json` and
/// invites:
/// - rendezvous: `mqtts://[user:password@]host[:port][?ca=/path/ca.pem]` (MQTT over TLS, 8883 by
///   default; the broker's certificate is checked against the system's CAs, or only against the
///   CA file given), or plain `mqtt://host[:port]` (1883; a login only to a broker on loopback);
/// - STUN: `stun:host[:port]` (3478);
/// - relay: `turn:host[:port][?transport=udp|tcp]` with credentials either as
///   `turn://user:password@host[:port]…` or a coturn REST shared secret, `…?secret=S`
///   (time-limited credentials are derived from it per connection); without credentials as
///   invites name a host's relays (a controller gets time-limited ones from the host, and
///   configuration files require them: `requiringRelayCredentials`).
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
    /// MQTT over TLS (`mqtts://`).
    public let tls: Bool
    /// `mqtts://…?ca=PATH`: trust only this CA file for the broker's certificate (else the
    /// system's CAs). A local path: never put into invites.
    public let caFile: String?
    /// The text it was parsed from.
    public let text: String

    public static let maxTextBytes = 512

    /// The same server without credentials (what an invite may name for a broker: controllers
    /// must not learn the host's login).
    public var withoutCredentials: ReachURL {
        guard credentials != .none || caFile != nil,
              let plain = try? ReachURL(parsing: "\(schemeText)://\(endpoint)\(overTCP ? "?transport=tcp" : "")", expecting: [scheme])
        else { return self }
        return plain
    }

    /// `mqtts` for MQTT over TLS, else the scheme's name.
    public var schemeText: String { tls ? "mqtts" : scheme.rawValue }

    /// Whether the host is this machine (a loopback address or `localhost`).
    public var isLoopback: Bool { HostPort(host: host, port: port).isLoopback || host.lowercased() == "localhost" }

    /// `host:port`, safe to show: never the credentials.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    public var description: String { "\(schemeText)://\(endpoint)\(overTCP ? "?transport=tcp" : "")" }

    /// Parses one URL; `expecting` limits which schemes a field takes.
    public init(parsing text: String, expecting schemes: Set<Scheme>) throws(WireError) {
        guard text.utf8.count <= Self.maxTextBytes, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw WireError(.invalidValue, "a server URL must be at most \(Self.maxTextBytes) printable ASCII characters without spaces")
        }
        let schemeName = text.firstIndex(of: ":").map { String(text[..<$0]).lowercased() } ?? ""
        let tls = schemeName == "mqtts"
        guard let colon = text.firstIndex(of: ":"), let scheme = tls ? .mqtt : Scheme(rawValue: schemeName),
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
        let defaultPort: UInt16 = scheme == .mqtt ? (tls ? 8883 : 1883) : 3478
        guard let hostPort = HostPort(parsing: String(rest), defaultPort: defaultPort) else {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: expected host[:port] (IPv6 as [addr]:port)")
        }
        var overTCP = false
        var caFile: String?
        for item in query.split(separator: "&") where !item.isEmpty {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            switch (pair.first ?? "", pair.count == 2 ? pair[1] : nil) {
            case ("transport", "udp"?) where scheme == .turn: overTCP = false
            case ("transport", "tcp"?) where scheme == .turn: overTCP = true
            case ("ca", let path?) where tls && path.hasPrefix("/"): caFile = Self.percentDecoded(Substring(path))
            case ("secret", let secret?) where scheme == .turn && !secret.isEmpty:
                guard case .none = credentials else {
                    throw WireError(.invalidValue, "`\(Self.redacted(text))`: give either user:password or secret=, not both")
                }
                credentials = .sharedSecret(Self.percentDecoded(Substring(secret)))
            default:
                throw WireError(.invalidValue, "`\(Self.redacted(text))`: unknown option `\(TerminalSafeText.sanitized(String(item.prefix(40))))`")
            }
        }
        if scheme == .stun, credentials != .none {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: STUN takes no credentials")
        }
        self.scheme = scheme
        host = hostPort.host
        port = hostPort.port
        self.credentials = credentials
        self.overTCP = overTCP
        self.tls = tls
        self.caFile = caFile
        self.text = text
    }

    /// Checks that a broker login does not travel in the clear: credentials only over `mqtts://`,
    /// or to a broker on this machine.
    public func requiringProtectedLogin() throws(WireError) -> ReachURL {
        if scheme == .mqtt, !tls, credentials != .none, !isLoopback {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: a broker login travels only over TLS (mqtts://) "
                + "or to a broker on this machine; anyone on the path would read it over plain mqtt://")
        }
        return self
    }

    /// Checks that a relay carries its own credentials (what a configuration file must give).
    public func requiringRelayCredentials() throws(WireError) -> ReachURL {
        if scheme == .turn, case .none = credentials {
            throw WireError(.invalidValue, "`\(Self.redacted(text))`: a TURN relay needs credentials (turn://user:password@host or ?secret=)")
        }
        return self
    }

    /// The relay with time-limited credentials from its host (`user` may hold colons: it is
    /// percent-encoded in the text and decoded again).
    public func with(_ credential: RelayCredential) -> ReachURL? {
        func encoded(_ text: String) -> String {
            text.utf8.map { byte -> String in
                let safe = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
                return safe ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }.joined()
        }
        return try? ReachURL(parsing: "turn://\(encoded(credential.username)):\(encoded(credential.password))@\(endpoint)\(overTCP ? "?transport=tcp" : "")",
                             expecting: [.turn])
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

extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
