extension Invite {
    /// Version of the binary layout; the text prefix carries the same number ("zrc1-"). Format 2
    /// appends the host's servers; an invite without servers is still written as format 1, so
    /// older controllers can pair with hosts that do not use a rendezvous.
    public static let formatVersion: UInt8 = 2
    static let supportedVersions: ClosedRange<UInt8> = 1...2
    public static var textPrefix: String { "zrc\(formatVersion)-" }

    var writtenVersion: UInt8 { servers.isEmpty ? 1 : 2 }

    /// version u8, length u16, CRC-8 of those three bytes.
    private static let headerLength = 4
    private static let checksumLength = 4
    /// Header, key, ID, secret, expiry, one address with a 1-byte host, empty name, CRC-32.
    private static let minimumLength = headerLength + 32 + 16 + 16 + 8 + 1 + (1 + 1 + 2) + 1 + checksumLength

    /// The copyable text form. It contains the secret, so it is exactly as sensitive: show it to the
    /// person pairing, never log it.
    public var text: String {
        var writer = ByteWriter(reservingCapacity: 256)
        writer.write(writtenVersion)
        writer.write(UInt16(0))  // patched below once the length is known
        writer.write(UInt8(0))
        writer.write(bytes: hostKey.bytes)
        writer.write(bytes: inviteID.bytes)
        secret.withUnsafeBytes { writer.write(bytes: $0) }
        writer.write(expiresAt)
        Self.write(addresses: addresses, hostName: hostName, to: &writer)
        if writtenVersion >= 2 {
            Self.write(servers: servers, to: &writer)
        }
        var bytes = writer.bytes
        let total = bytes.count + Self.checksumLength
        bytes[1] = UInt8(total >> 8)
        bytes[2] = UInt8(total & 0xFF)
        bytes[3] = CRC8.checksum(bytes[0..<3])
        var checksum = ByteWriter(reservingCapacity: 4)
        checksum.write(CRC32.checksum(bytes))
        bytes += checksum.bytes
        return "zrc\(writtenVersion)-" + Base32.encode(bytes)
    }

    /// Parses an invite a person pasted or typed. Whitespace and line breaks anywhere are ignored
    /// and letters may be upper case. Errors say which of these went wrong: `.notAnInvite`,
    /// `.unknownInviteVersion`, `.damagedInvite` (typo, bad character, checksum) or
    /// `.truncatedInvite` (the copy stopped short).
    public init(parsing text: String) throws(WireError) {
        let normalized: [UInt8] = text.utf8.compactMap { byte in
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): nil
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 0x20
            default: byte
            }
        }
        let (bodyStart, version) = try Self.checkPrefix(normalized)
        let decoded: Base32.Decoded
        do {
            decoded = try Base32.decodeLeniently(normalized[bodyStart...])
        } catch {
            switch error {
            case .invalidCharacter(let offset, let byte):
                let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
                throw WireError(
                    .damagedInvite,
                    "the invite has a typo: \(shown) at position \(bodyStart + offset + 1) cannot occur in an invite "
                        + "(only a–z and 2–7; 0, 1, 8 and 9 are never used) — check it or copy it again")
            }
        }
        self = try Self.decodeBinary(decoded, version: version, textLength: normalized.count - bodyStart)
    }

    /// Returns where the base32 part starts and the format, or throws for text that is not an
    /// invite of a format this program reads.
    private static func checkPrefix(_ text: [UInt8]) throws(WireError) -> (Int, UInt8) {
        let notAnInvite = WireError(.notAnInvite, "this is not a ZRC invite: an invite starts with \"zrc1-\" or \"zrc2-\"")
        guard text.starts(with: "zrc".utf8) else { throw notAnInvite }
        var index = 3
        while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
        guard index > 3, index < text.count, text[index] == UInt8(ascii: "-") else { throw notAnInvite }
        let digits = String(decoding: text[3..<index], as: UTF8.self)
        guard let version = UInt8(digits), supportedVersions.contains(version) else {
            throw WireError(
                .unknownInviteVersion,
                "this invite uses format \(digits), but this program reads formats \(supportedVersions.lowerBound)…\(formatVersion) only: "
                    + "upgrade zrc-ctl, or ask for an invite from a matching zrc-host")
        }
        return (index + 1, version)
    }

    private static func decodeBinary(_ decoded: Base32.Decoded, version: UInt8, textLength: Int) throws(WireError) -> Invite {
        let bytes = decoded.bytes
        let copyAgain = "copy the whole invite again"
        guard bytes.count >= headerLength else {
            throw WireError(.truncatedInvite, "the invite is cut short (only \(textLength) characters after the prefix): \(copyAgain)")
        }
        guard CRC8.checksum(bytes[0..<3]) == bytes[3], bytes[0] == version else {
            throw WireError(.damagedInvite, "the start of the invite is damaged (header check failed): check for typos or \(copyAgain)")
        }
        let declared = Int(bytes[1]) << 8 | Int(bytes[2])
        guard declared >= minimumLength else {
            throw WireError(.damagedInvite, "the invite's length field is invalid: \(copyAgain)")
        }
        let expectedCharacters = (declared * 8 + 4) / 5
        guard bytes.count >= declared else {
            throw WireError(
                .truncatedInvite,
                "the invite is cut short (\(textLength) of \(expectedCharacters) characters after the prefix): \(copyAgain)")
        }
        guard bytes.count == declared, decoded.isCanonical else {
            throw WireError(
                .damagedInvite,
                "the invite has extra or mistyped characters at the end (\(textLength) characters after the prefix, "
                    + "expected \(expectedCharacters)): \(copyAgain)")
        }
        let body = bytes[0..<(declared - checksumLength)]
        var trailer = ByteReader(bytes[(declared - checksumLength)...], context: "invite")
        guard CRC32.checksum(body) == (try? trailer.readUInt32("checksum")) else {
            throw WireError(.damagedInvite, "the invite has a typo (checksum mismatch): check it or \(copyAgain)")
        }
        do {
            return try parseFields(body.dropFirst(headerLength), version: version)
        } catch {
            throw WireError(
                .damagedInvite,
                "the invite's checksum is right but its content is invalid (\(error.message)); "
                    + "the host that made it is faulty — ask for a new invite")
        }
    }

    private static func parseFields(_ fields: ArraySlice<UInt8>, version: UInt8) throws(WireError) -> Invite {
        var reader = ByteReader(fields, context: "invite")
        let keyBytes = try reader.readBytes(count: NoisePublicKey.length, "host key")
        let hostKey: NoisePublicKey
        do {
            hostKey = try NoisePublicKey(bytes: keyBytes)
        } catch {
            throw reader.invalid("host key", error.message)
        }
        let inviteID = try InviteID(bytes: try reader.readBytes(count: InviteID.length, "invite ID"))
        let secret = SecretBytes(try reader.readSlice(count: secretLength, "secret"))
        let expiresAt = try reader.readUInt64("expiresAt")
        let (addresses, hostName) = try readAddresses(&reader)
        let servers = version >= 2 ? try readServers(&reader) : []
        try reader.expectEnd()
        return try Invite(
            hostKey: hostKey, inviteID: inviteID, secret: secret, expiresAt: expiresAt, addresses: addresses,
            hostName: hostName, servers: servers)
    }

    // The addresses, host name and servers, as invites and the host's pairing-by-code AD carry them.

    static func write(addresses: [InviteAddress], hostName: String, to writer: inout ByteWriter) {
        writer.write(UInt8(addresses.count))
        for address in addresses {
            writer.write(shortString: address.host)
            writer.write(address.port)
        }
        writer.write(shortString: hostName)
    }

    static func write(servers: [ReachURL], to writer: inout ByteWriter) {
        writer.write(UInt8(servers.count))
        for server in servers { writer.write(shortString: server.text) }
    }

    static func readAddresses(_ reader: inout ByteReader) throws(WireError) -> (addresses: [InviteAddress], hostName: String) {
        let count = Int(try reader.readUInt8("address count"))
        guard (1...WireLimits.maxInviteAddresses).contains(count) else {
            throw reader.invalid("address count", "is \(count), must be 1…\(WireLimits.maxInviteAddresses)")
        }
        var addresses: [InviteAddress] = []
        for index in 0..<count {
            let host = try reader.readShortString("addresses[\(index)].host")
            addresses.append(InviteAddress(host: host, port: try reader.readUInt16("addresses[\(index)].port")))
        }
        return (addresses, try reader.readShortString("host name"))
    }

    static func readServers(_ reader: inout ByteReader) throws(WireError) -> [ReachURL] {
        let count = Int(try reader.readUInt8("server count"))
        guard count <= maxServers else { throw reader.invalid("server count", "is \(count), at most \(maxServers)") }
        var servers: [ReachURL] = []
        for index in 0..<count {
            servers.append(try ReachURL(parsing: try reader.readShortString("servers[\(index)]"), expecting: [.mqtt, .turn, .stun]))
        }
        return servers
    }
}
