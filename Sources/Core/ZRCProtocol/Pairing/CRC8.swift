/// CRC-8 (polynomial 0x07, initial value 0, no reflection — "CRC-8/SMBUS").
///
/// Guards the 3-byte invite header (version, length) on its own, so a damaged length field is
/// reported as damage rather than misread as a truncated invite.
enum CRC8 {
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
