/// A `host:port` pair as users write it: `192.0.2.7:7420`, `desk.local:7420`, `[2001:db8::1]:7420`.
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    public static let defaultPort: UInt16 = 7420

    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`, `[v6]:port`, or a bare host (the default port is used). Returns nil for
    /// anything else, including an empty host or a port outside 1…65535 (0 too when
    /// `allowingAnyPort`, which a listening address uses to mean "pick a free port").
    public init?(parsing text: String, defaultPort: UInt16? = nil, allowingAnyPort: Bool = false) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                portText = nil
            } else {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else if !text.contains(":") {
            host = Substring(text)
            portText = nil
        } else {
            return nil // A bare IPv6 address is ambiguous with a port; require brackets.
        }
        guard Self.hostProblem(host) == nil else { return nil }
        let port: UInt16
        if let portText {
            guard let value = UInt16(portText), value > 0 || allowingAnyPort else { return nil }
            port = value
        } else {
            guard let defaultPort else { return nil }
            port = defaultPort
        }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why `host` cannot be a host to dial, or nil when it can: 1…253 UTF-8 bytes of letters,
    /// digits and `-` `.` `_` (names, IPv4), `:` (IPv6) and `%` (an IPv6 zone). Nothing else — no
    /// whitespace, no control, format or escape characters — so an address from an invite or a
    /// file can be shown and dialled as it is. The message never repeats the host itself.
    public static func hostProblem(_ host: some StringProtocol) -> String? {
        let length = host.utf8.count
        guard (1...253).contains(length) else { return "a host must be 1…253 bytes, not \(length)" }
        for scalar in host.unicodeScalars {
            let allowed = "-._:%".unicodeScalars.contains(scalar)
                || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            guard allowed, TerminalSafeText.isSafe(scalar, allowingLineBreaks: false) else {
                return "a host cannot contain U+\(String(scalar.value, radix: 16, uppercase: true))"
            }
        }
        return nil
    }
}

extension HostPort {
    /// A loopback address (127.0.0.0/8, ::1, localhost): reachable from this machine only.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }
}
