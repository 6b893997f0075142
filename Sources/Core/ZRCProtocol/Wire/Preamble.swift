/// The 8 bytes each side sends first: ASCII "ZRCP", u16 protocol major version, u16 flags.
///
/// It exists so that pointing `zrc-ctl` at the wrong port, or a browser at `zrc-host`, ends in a
/// sentence naming the problem instead of a handshake failure, and so that a version mismatch is
/// reported before any cryptography runs.
public enum Preamble {
    public static let length = 8
    public static let magic: [UInt8] = Array("ZRCP".utf8)

    public enum ParseResult: Sendable, Equatable {
        /// Not enough bytes yet to decide; call again with more.
        case needMoreBytes
        /// A ZRC peer speaking `version`; exactly `Preamble.length` bytes belong to the preamble.
        case ok(version: UInt16)
        /// Not a ZRC peer, or an incompatible version: close the connection and show the message.
        case error(WireError)
    }

    /// Flags are reserved: version 1 sends 0 and ignores bits it does not know, so a later minor
    /// addition can announce itself without breaking older peers.
    public static func encode(version: UInt16 = WireLimits.protocolVersion, flags: UInt16 = 0) -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: length)
        writer.write(bytes: magic)
        writer.write(version)
        writer.write(flags)
        return writer.bytes
    }

    /// Parses the first bytes received. Pass everything received so far; bytes beyond the first
    /// `length` are ignored (they belong to the record layer).
    ///
    /// Decides as early as it can: a peer that is clearly not ZRC (e.g. "SSH-") is reported without
    /// waiting for 8 bytes, because such a peer may never send more.
    public static func parse(
        _ received: some Collection<UInt8>,
        localRole: PeerRole,
        localVersion: UInt16 = WireLimits.protocolVersion
    ) -> ParseResult {
        let head = Array(received.prefix(length))
        let magicCount = min(head.count, magic.count)
        if head[..<magicCount] == magic[..<magicCount] {
            guard head.count == length else { return .needMoreBytes }
            let version = UInt16(head[4]) << 8 | UInt16(head[5])
            guard version == localVersion else {
                return .error(versionMismatch(peerVersion: version, localVersion: localVersion, localRole: localRole))
            }
            return .ok(version: version)
        }
        switch ForeignService.identify(head) {
        case .known(let service):
            return .error(notZRC(localRole: localRole, detail: service))
        case .undecided where head.count < length:
            return .needMoreBytes
        case .undecided, .unknown:
            return .error(notZRC(localRole: localRole, detail: "sent \(render(head))"))
        }
    }

    private static func versionMismatch(peerVersion: UInt16, localVersion: UInt16, localRole: PeerRole) -> WireError {
        let peer = localRole.peer
        let advice =
            peerVersion > localVersion
            ? "upgrade \(localRole.program) on this machine"
            : "upgrade \(peer.program) on the \(peer.name) machine"
        return WireError(
            .protocolVersionMismatch,
            "\(peer.name) speaks ZRC protocol v\(peerVersion), this \(localRole.name) v\(localVersion): \(advice) "
                + "so both speak the same version")
    }

    private static func notZRC(localRole: PeerRole, detail: String) -> WireError {
        switch localRole {
        case .controller:
            WireError(
                .notZRCPeer,
                "the server at this address is not a ZRC host (it \(detail)); check the host address and port")
        case .host:
            WireError(.notZRCPeer, "a client that is not a ZRC controller connected (it \(detail)); closed it")
        }
    }

    /// Printable ASCII as text, everything else as hex, so the message shows what arrived.
    private static func render(_ bytes: [UInt8]) -> String {
        if !bytes.isEmpty, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        }
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "bytes " + hex.joined(separator: " ")
    }
}

/// First bytes of services someone might mistake for a ZRC peer, so the error can name them.
private enum ForeignService {
    case known(String)
    /// The bytes so far are a prefix of a known signature; more bytes will tell.
    case undecided
    case unknown

    private static let signatures: [(bytes: [UInt8], description: String)] = [
        (Array("HTTP/".utf8), "answered like an HTTP server"),
        (Array("GET ".utf8), "sent an HTTP request"),
        (Array("POST ".utf8), "sent an HTTP request"),
        (Array("HEAD ".utf8), "sent an HTTP request"),
        (Array("PUT ".utf8), "sent an HTTP request"),
        (Array("OPTIONS ".utf8), "sent an HTTP request"),
        (Array("CONNECT ".utf8), "sent an HTTP proxy request"),
        (Array("SSH-".utf8), "speaks SSH"),
        (Array("RFB ".utf8), "speaks VNC (RFB)"),
        ([0x16, 0x03], "started a TLS handshake"),
        ([0x15, 0x03], "sent a TLS alert"),
    ]

    static func identify(_ head: [UInt8]) -> ForeignService {
        var undecided = false
        for signature in signatures {
            if head.starts(with: signature.bytes) { return .known(signature.description) }
            if signature.bytes.starts(with: head) { undecided = true }
        }
        return undecided ? .undecided : .unknown
    }
}
