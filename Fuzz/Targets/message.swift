import ZRCProtocol

// Target `message`: one reassembled application message, every type's decoder behind the type
// byte. The encoding is canonical (Schemas/wire-protocol.md §6), so whatever decodes must encode
// back to exactly its bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let decoded = try? ZRCMessage.decode(bytes)
    // The same bytes at a non-zero start index (as a slice of a larger buffer) decode the same.
    let padded = [0xA5] + bytes
    expect((try? ZRCMessage.decode(padded[1...])) == decoded, "a slice decoded differently from an array")
    guard let message = decoded else { return 0 }
    let encoded = message.encode()
    expect(encoded == bytes, "\(message.type) re-encodes to other bytes")
    expect((try? ZRCMessage.decode(encoded)) == message, "\(message.type) does not survive a round trip")
    return 0
}
