/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in zlib and PNG).
///
/// Used only as a typo check on invites: it detects every single mistyped character and any burst
/// up to 32 bits, but it is not a cryptographic integrity check. Integrity comes from the pairing
/// handshake, which fails unless both sides hold the same host key and secret.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
