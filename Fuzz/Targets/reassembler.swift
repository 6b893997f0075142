import ZRCProtocol

// Target `reassembler`: decrypted transport plaintexts, in order. The first byte picks the
// receiver's message limit (and the fragment size for the round trip); the rest is a sequence of
// plaintexts, each behind a u16 length.

private let limits = [1, 17, WireLimits.maxControllerMessageLength, WireLimits.defaultMaxMessageLength]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReassembler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let first = bytes.first else { return 0 }
    let limit = limits[Int(first) % limits.count]
    var reassembler = MessageReassembler(maxMessageLength: limit)
    for plaintext in lengthPrefixedPieces(bytes[1...]) {
        let message: [UInt8]?
        do {
            message = try reassembler.add(Array(plaintext))
        } catch {
            expect((try? reassembler.add([0x03, 0, 0, 0, 1, 0x02])) == nil, "the reassembler went on after an error")
            return 0
        }
        guard let message else {
            expect(reassembler.isReceivingMessage, "a fragment was taken but no message is in progress")
            continue
        }
        expect(!reassembler.isReceivingMessage, "a message completed but another is in progress")
        expect((1...limit).contains(message.count), "a \(message.count)-byte message passed the \(limit)-byte limit")
        expect(roundTrip(message, limit: limit, fragmentSize: 7 + Int(first >> 2)) == message,
               "our own fragments of a \(message.count)-byte message do not reassemble to it")
    }
    return 0
}

/// The message through our fragmenter and a fresh reassembler.
private func roundTrip(_ message: [UInt8], limit: Int, fragmentSize: Int) -> [UInt8]? {
    var reassembler = MessageReassembler(maxMessageLength: limit)
    var result: [UInt8]?
    do {
        for fragment in MessageFragmenter(maxPlaintextLength: fragmentSize).fragments(of: message) {
            result = try reassembler.add(fragment)
        }
    } catch {
        return nil
    }
    return result
}
