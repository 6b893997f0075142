import PropertyBased
import Testing
import ZRCSodium
@testable import ZRCProtocol

/// Sealing in place (the records laid out in the caller's buffer and encrypted there) against the
/// copying primitives the Noise vectors check, and through a real channel pair.
@Suite struct SealInPlaceTests {
    let crypto = try! SodiumCrypto()

    @Test(arguments: [0, 1, 15, 16, 17, 1000, 65519])
    func inPlaceEncryptionIsByteForByteTheCopyingOne(length: Int) {
        let key = crypto.randomSecret(count: 32)
        let plaintext = crypto.randomBytes(count: length)
        let associatedData = crypto.randomBytes(count: length % 7)
        let copied = crypto.encrypt(key: key, nonce: 9, associatedData: associatedData, plaintext: plaintext)
        var buffer = plaintext + [UInt8](repeating: 0, count: 16)
        buffer.withUnsafeMutableBytes { crypto.encryptInPlace(key: key, nonce: 9, associatedData: associatedData, buffer: $0) }
        #expect(buffer == copied)
        var failure: NoiseError?
        buffer.withUnsafeMutableBytes { bytes in
            do throws(NoiseError) { try crypto.decryptInPlace(key: key, nonce: 9, associatedData: associatedData, buffer: bytes) } catch { failure = error }
        }
        #expect(failure == nil)
        #expect(Array(buffer.prefix(length)) == plaintext)
    }

    /// A record that fails authentication is never decrypted: no plaintext byte appears in the
    /// buffer (libsodium checks the tag first and clears the output on failure).
    @Test(arguments: [0, 5, 16])
    func aTamperedRecordFailsWithoutRevealingPlaintext(flippedFromEnd: Int) {
        let key = crypto.randomSecret(count: 32)
        let plaintext = [UInt8](repeating: 0xA5, count: 40)
        var buffer = crypto.encrypt(key: key, nonce: 3, associatedData: [], plaintext: plaintext)
        buffer[buffer.count - 1 - flippedFromEnd] ^= 0x20
        var failure: NoiseError?
        buffer.withUnsafeMutableBytes { bytes in
            do throws(NoiseError) { try crypto.decryptInPlace(key: key, nonce: 3, associatedData: [], buffer: bytes) } catch { failure = error }
        }
        #expect(failure?.kind == .decryptFailed)
        #expect(!buffer.prefix(40).contains(0xA5))
    }

    /// The pieces a sender lays out itself are the fragmenter's plaintexts, for small limits
    /// (many fragments) and the real one.
    @Test func piecesDescribeTheFragmentersPlaintexts() async {
        await propertyCheck(input: Gen.int(in: 7...40), Gen.int(in: 1...500)) { limit, length in
            let fragmenter = MessageFragmenter(maxPlaintextLength: limit)
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let rebuilt = fragmenter.pieces(ofMessageLength: length).map { piece in
                [piece.flags] + (piece.isFirst ? withUnsafeBytes(of: UInt32(length).bigEndian, Array.init) : []) + message[piece.chunk]
            }
            #expect(rebuilt == fragmenter.fragments(of: message))
        }
    }

    /// Messages from one byte to past a megabyte (many records) sealed in place open at the peer,
    /// take exactly `sealedLength` bytes, and any flipped byte ends the channel.
    @Test func sealedInPlaceOpensAtThePeerAndTakesItsLength() async throws {
        await propertyCheck(count: 30, input: Gen.int(in: 0...WireLimits.maxClipboardBytes), Gen.int(in: 0...Int.max)) { length, flip in
            try checkSealing(length: length, flip: flip)
        }
    }

    private func checkSealing(length: Int, flip: Int) throws {
        let message = ZRCMessage.clipboard(.text(String(repeating: "z", count: length)))
        let encoded = message.encode()
        var peers = try SessionHandshakeTests().connect(pairing: false)
        let sealed = try peers.host.seal(encoded: encoded)
        #expect(sealed.count == peers.host.sealedLength(ofMessageLength: encoded.count))
        #expect(try peers.controller.open(sealed) == [message])
        var tampered = sealed
        tampered[flip % tampered.count] ^= 0x01
        var other = try SessionHandshakeTests().connect(pairing: false)
        _ = try other.host.seal(encoded: encoded)
        #expect(throws: SessionError.self) { _ = try other.controller.open(tampered) }
    }

    /// A message handed over as a head and a tail (a file chunk's fields and its data, never
    /// joined) opens at the peer as the joined message, whatever the split and however many
    /// records it takes, and takes exactly `sealedLength` bytes.
    @Test func aMessageSealedInTwoPartsOpensAsTheWhole() async throws {
        await propertyCheck(count: 40, input: Gen.int(in: 1...150_000), Gen.int(in: 0...Int.max)) { length, split in
            let message = ZRCMessage.clipboard(.text(String(repeating: "q", count: length)))
            let encoded = message.encode()
            let cut = split % (encoded.count + 1)
            var peers = try SessionHandshakeTests().connect(pairing: false)
            let total = peers.host.sealedLength(ofMessageLength: encoded.count)
            var sealed = [UInt8](repeating: 0, count: total)
            let written = try sealed.withUnsafeMutableBytes { output in
                try peers.host.seal(encoded: Array(encoded[..<cut]), tail: Array(encoded[cut...]), into: output)
            }
            #expect(written == total)
            #expect(try peers.controller.open(sealed) == [message])
        }
    }

    /// `encodedParts` joins to `encode()`: a file chunk's data is its tail, any other message is all head.
    @Test(arguments: [
        ZRCMessage.fileData(requestID: 7, offset: 1 << 40, data: (0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
        ZRCMessage.fileData(requestID: 1, offset: 0, data: [42]),
        ZRCMessage.fileAck(requestID: 3, offset: 99),
        ZRCMessage.ping(id: 5, sentAtMicros: 6),
    ])
    func encodedPartsJoinToTheEncoding(message: ZRCMessage) {
        let parts = message.encodedParts()
        #expect(parts.head + parts.tail == message.encode())
        if case .fileData(_, _, let data) = message { #expect(parts.tail == data) } else { #expect(parts.tail.isEmpty) }
    }
}
