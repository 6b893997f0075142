/// One UDP ICE candidate (RFC 8445 §5.1) as the rendezvous carries it: what kind of address, its
/// priority and foundation, and the address itself. Only numeric IPv4/IPv6 addresses travel: a
/// peer's candidate is never a name to resolve.
public struct IceCandidate: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        case host = 0
        case serverReflexive = 1
        case peerReflexive = 2
        case relayed = 3

        /// RFC 8445's short names, as users see them in path descriptions.
        public var shortName: String {
            switch self {
            case .host: "host"
            case .serverReflexive: "srflx"
            case .peerReflexive: "prflx"
            case .relayed: "relay"
            }
        }
    }

    public var kind: Kind
    public var priority: UInt32
    /// 1…32 ice-chars (RFC 8445 §5.1.1.3).
    public var foundation: String
    /// A numeric IPv4 or IPv6 address (no zone, no brackets).
    public var address: String
    public var port: UInt16

    public init(kind: Kind, priority: UInt32, foundation: String, address: String, port: UInt16) {
        self.kind = kind
        self.priority = priority
        self.foundation = foundation
        self.address = address
        self.port = port
    }

    public var endpoint: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }

    /// A numeric IPv4 or IPv6 address (what candidates carry; anything else is a name).
    public static func isNumericAddress(_ text: String) -> Bool { IceText.isNumericAddress(text) }
    public var description: String { "\(kind.shortName) \(endpoint)" }

    /// An address that means something only inside its own network: RFC 1918, loopback,
    /// link-local (IPv4 and IPv6) and unique-local IPv6 (fc00::/7). A relay asked to reach one
    /// learns it, so a relay-only side never pairs with such a candidate of its peer.
    public var isPrivate: Bool { Self.isPrivate(address) }

    public static func isPrivate(_ address: String) -> Bool {
        let parts = address.split(separator: ".").compactMap { UInt8($0) }
        if parts.count == 4 {
            switch (parts[0], parts[1]) {
            case (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, let second): return (16...31).contains(second)
            default: return false
            }
        }
        let lower = address.lowercased()
        guard lower.contains(":") else { return false }
        if lower == "::1" { return true }
        if lower.hasPrefix("::ffff:") { return isPrivate(String(lower.dropFirst(7))) }
        guard let first = lower.split(separator: ":", omittingEmptySubsequences: false).first, let group = UInt16(first, radix: 16) else {
            return false
        }
        return group & 0xFE00 == 0xFC00 || group & 0xFFC0 == 0xFE80
    }

    /// Why a peer's candidate cannot be used, or nil.
    public func problem() -> String? {
        guard (1...32).contains(foundation.utf8.count), foundation.utf8.allSatisfy(IceText.isIceChar) else {
            return "a candidate's foundation is not 1…32 ICE characters"
        }
        guard IceText.isNumericAddress(address) else { return "a candidate's address is not a numeric IP address" }
        guard port != 0 else { return "a candidate has port 0" }
        return nil
    }
}

/// A side's ICE parameters: credentials and candidates (no trickling: all at once).
public struct IceDescription: Sendable, Hashable {
    /// The same without candidates at private addresses (what a relay-only side pairs with).
    public var withoutPrivateCandidates: IceDescription {
        var copy = self
        copy.candidates.removeAll { $0.isPrivate }
        return copy
    }

    /// RFC 8445 §5.3: ufrag 4…256 and password 22…256 ice-chars; libnice makes 4 and 22.
    public var usernameFragment: String
    public var password: String
    public var candidates: [IceCandidate]

    public static let maxCandidates = 16

    public init(usernameFragment: String, password: String, candidates: [IceCandidate]) {
        self.usernameFragment = usernameFragment
        self.password = password
        self.candidates = candidates
    }

    public func problem() -> String? {
        guard (4...256).contains(usernameFragment.utf8.count), usernameFragment.utf8.allSatisfy(IceText.isIceChar) else {
            return "the ICE username fragment is not 4…256 ICE characters"
        }
        guard (22...256).contains(password.utf8.count), password.utf8.allSatisfy(IceText.isIceChar) else {
            return "the ICE password is not 22…256 ICE characters"
        }
        guard candidates.count <= Self.maxCandidates else { return "more than \(Self.maxCandidates) candidates" }
        for candidate in candidates {
            if let problem = candidate.problem() { return problem }
        }
        return nil
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(shortString: usernameFragment)
        writer.write(shortString: password)
        writer.write(UInt8(candidates.count))
        for candidate in candidates {
            writer.write(candidate.kind.rawValue)
            writer.write(candidate.priority)
            writer.write(shortString: candidate.foundation)
            writer.write(shortString: candidate.address)
            writer.write(candidate.port)
        }
    }

    static func decode(from reader: inout ByteReader) throws(WireError) -> IceDescription {
        let ufrag = try reader.readShortString("ICE username fragment")
        let password = try reader.readShortString("ICE password")
        let count = Int(try reader.readUInt8("candidate count"))
        guard count <= maxCandidates else { throw WireError(.lengthTooLarge, "\(count) ICE candidates; the limit is \(maxCandidates)") }
        var candidates: [IceCandidate] = []
        for _ in 0..<count {
            let rawKind = try reader.readUInt8("candidate type")
            guard let kind = IceCandidate.Kind(rawValue: rawKind) else { throw reader.invalid("candidate type", "unknown type \(rawKind)") }
            candidates.append(IceCandidate(
                kind: kind, priority: try reader.readUInt32("candidate priority"), foundation: try reader.readShortString("candidate foundation"),
                address: try reader.readShortString("candidate address"), port: try reader.readUInt16("candidate port")))
        }
        let description = IceDescription(usernameFragment: ufrag, password: password, candidates: candidates)
        if let problem = description.problem() { throw WireError(.invalidValue, problem) }
        return description
    }
}

/// Character rules for what ICE exchanges.
enum IceText {
    /// ice-char = ALPHA / DIGIT / "+" / "/" (RFC 8445 §5.3).
    static func isIceChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }

    /// A dotted-quad IPv4 address, or an IPv6 address of hex groups and colons (optionally ending
    /// in a dotted quad). Shape only: the adapter's numeric-only parser has the last word.
    static func isNumericAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (2...45).contains(bytes.count) else { return false }
        if bytes.contains(UInt8(ascii: ":")) {
            return bytes.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
                && bytes.count(where: { $0 == UInt8(ascii: ":") }) <= 7
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                && (Int(part) ?? 256) <= 255
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
