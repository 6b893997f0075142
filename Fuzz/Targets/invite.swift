@testable import ZRCProtocol

// Target `invite`: text a person pastes into `zrc-ctl pair`. With an even first byte the rest is
// that text. With an odd one the rest is the binary body, wrapped in a valid header and CRC-32
// and base32-encoded here: checksums are no security, and the fuzzer cannot find a CRC-32 itself,
// so this is how it reaches the field parser behind them.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInvite(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let first = bytes.first else { return 0 }
    let text = first & 1 == 0 ? String(decoding: bytes[1...], as: UTF8.self) : wrapped(Array(bytes[1...]))
    guard let invite = try? Invite(parsing: text) else { return 0 }
    expect(invite.text.hasPrefix(Invite.textPrefix), "an invite's text lost its prefix")
    expect((try? Invite(parsing: invite.text)) == invite, "an accepted invite does not survive its own text form")
    return 0
}

/// `body` as the fields of a version-1 invite with a correct header and checksum.
private func wrapped(_ body: [UInt8]) -> String {
    let total = 4 + body.count + 4
    guard total <= Int(UInt16.max) else { return "" }
    var bytes: [UInt8] = [Invite.formatVersion, UInt8(total >> 8), UInt8(total & 0xFF)]
    bytes.append(CRC8.checksum(bytes))
    bytes += body
    let crc = CRC32.checksum(bytes)
    bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    return Invite.textPrefix + Base32.encode(bytes)
}
