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
        guard !host.isEmpty, host.count <= 253, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
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
}
