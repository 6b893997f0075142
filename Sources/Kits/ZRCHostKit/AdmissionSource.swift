import Glibc

/// Where a connection comes from, as admission counts it: an IPv4 address, an IPv6 /64 (one
/// subscriber usually holds a whole /64, so per-address limits would mean nothing there), or a
/// stream adopted from the rendezvous (already vouched for by a sealed offer from a paired
/// controller, and counted in a pool of its own).
struct AdmissionSource: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    enum Kind: Hashable, Sendable {
        case address
        case rendezvous
    }

    let kind: Kind
    let key: String

    var description: String { key }

    /// An IP address as text: IPv4 as it is, an IPv4-mapped IPv6 address as its IPv4 address,
    /// any other IPv6 address as its /64 prefix. Text that is no IP address is kept as it is.
    static func address(_ text: String) -> AdmissionSource {
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return AdmissionSource(kind: .address, key: text) }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return AdmissionSource(kind: .address, key: bytes[12...].map(String.init).joined(separator: "."))
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return AdmissionSource(kind: .address, key: groups.joined(separator: ":") + "::/64")
    }

    /// A stream from the rendezvous, for the controller with this key fingerprint.
    static func rendezvous(_ fingerprint: String) -> AdmissionSource {
        AdmissionSource(kind: .rendezvous, key: "rendezvous:\(fingerprint)")
    }

    init(kind: Kind, key: String) {
        self.kind = kind
        self.key = key
    }

    init(stringLiteral value: String) { self = Self.address(value) }
}
