import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

@Suite struct FragmentationTests {
    @Test func smallMessageIsOneFragmentWithBothFlags() {
        #expect(MessageFragmenter().fragments(of: [0xAB, 0xCD]) == [[0x03, 0, 0, 0, 2, 0xAB, 0xCD]])
    }

    @Test func splitsAtTheLimit() {
        let fragmenter = MessageFragmenter(maxPlaintextLength: 8)
        let fragments = fragmenter.fragments(of: Array(1...12))
        #expect(fragments == [
            [0x01, 0, 0, 0, 12, 1, 2, 3],
            [0x00, 4, 5, 6, 7, 8, 9, 10],
            [0x02, 11, 12],
        ])
    }

    @Test func defaultPlaintextsFitARecordAfterTheTag() {
        let message = [UInt8](repeating: 1, count: 200_000)
        let fragments = MessageFragmenter().fragments(of: message)
        #expect(fragments.allSatisfy { $0.count + WireLimits.aeadTagLength <= WireLimits.maxRecordBody })
        #expect(fragments.first?.count == WireLimits.maxTransportPlaintext)
    }

    @Test func roundTripWithAnyLimit() async {
        await propertyCheck(input: Gen.int(in: 6...300), Gen.int(in: 1...2000), Generators.seed) { limit, length, seed in
            var rng = SplitMix64(seed: seed)
            let message = RandomValues.bytes(length, &rng)
            let fragments = MessageFragmenter(maxPlaintextLength: limit).fragments(of: message)
            #expect(fragments.allSatisfy { $0.count <= limit })
            var reassembler = MessageReassembler()
            var results: [[UInt8]] = []
            for fragment in fragments {
                if let done = try reassembler.add(fragment) { results.append(Array(done)) }
            }
            #expect(results == [message])
            #expect(!reassembler.isReceivingMessage)
        }
    }

    static let max = WireLimits.defaultMaxMessageLength

    /// Sequences of plaintexts; the last one must fail with the given kind.
    static let badSequences: [(name: String, fragments: [[UInt8]], kind: WireError.Kind)] = [
        ("empty plaintext", [[]], .truncated),
        ("continuation without FIRST", [[0x00, 1]], .fragmentSequence),
        ("LAST without FIRST", [[0x02, 1]], .fragmentSequence),
        ("reserved flag bit", [[0x07, 0, 0, 0, 1, 1]], .fragmentSequence),
        ("FIRST without length", [[0x01, 0, 0]], .truncated),
        ("announced empty message", [[0x03, 0, 0, 0, 0]], .fragmentSequence),
        ("announced max + 1", [[0x01] + be32(UInt32(max + 1)) + [1]], .lengthTooLarge),
        ("announced 0xFFFFFFFF", [[0x01, 0xFF, 0xFF, 0xFF, 0xFF, 1]], .lengthTooLarge),
        ("FIRST without chunk", [[0x01, 0, 0, 0, 4]], .fragmentSequence),
        ("single fragment short", [[0x03, 0, 0, 0, 3, 1, 2]], .fragmentSequence),
        ("single fragment long", [[0x03, 0, 0, 0, 1, 1, 2]], .fragmentSequence),
        ("chunks overflow", [[0x01, 0, 0, 0, 3, 1, 2], [0x02, 3, 4]], .fragmentSequence),
        ("LAST missing bytes", [[0x01, 0, 0, 0, 4, 1, 2], [0x02, 3]], .fragmentSequence),
        ("FIRST mid-message", [[0x01, 0, 0, 0, 4, 1, 2], [0x01, 0, 0, 0, 1, 1]], .fragmentSequence),
        ("complete but not LAST", [[0x01, 0, 0, 0, 2, 1, 2]], .fragmentSequence),
        ("empty continuation", [[0x01, 0, 0, 0, 4, 1, 2], [0x00]], .fragmentSequence),
    ]

    @Test(arguments: badSequences)
    func rejects(name: String, fragments: [[UInt8]], kind: WireError.Kind) throws {
        var reassembler = MessageReassembler()
        for fragment in fragments.dropLast() { _ = try reassembler.add(fragment) }
        #expect(errorKind { () throws(WireError) in try reassembler.add(fragments.last!) } == kind, "\(name)")
        // Final: the stream is out of step, even a valid fragment now fails.
        #expect(errorKind { () throws(WireError) in try reassembler.add([0x03, 0, 0, 0, 1, 1]) } != nil)
    }

    @Test func announcedMaxIsAccepted() throws {
        var reassembler = MessageReassembler(maxMessageLength: 10)
        #expect(try reassembler.add([0x01, 0, 0, 0, 10, 1]) == nil)
        #expect(errorKind { () throws(WireError) in
            var other = MessageReassembler(maxMessageLength: 10)
            return try other.add([0x01, 0, 0, 0, 11, 1])
        } == .lengthTooLarge)
    }

    /// Announcing a length costs the peer five bytes: it must not cost us the length. A message
    /// announced at the 32 MiB limit and trickled a byte at a time holds what arrived, plus room
    /// for a few records.
    @Test func anAnnouncedLengthIsNotReservedUpFront() throws {
        var reassembler = MessageReassembler()
        let total = UInt32(WireLimits.defaultMaxMessageLength)
        #expect(try reassembler.add([0x01] + withUnsafeBytes(of: total.bigEndian, Array.init) + [0x11]) == nil)
        for _ in 0..<1000 { #expect(try reassembler.add([0x00, 0x00]) == nil) }
        #expect(reassembler.isReceivingMessage)
        // Room for a few records (the allocator rounds up), not the 32 MiB announced.
        #expect(reassembler.reservedCapacity < 1 << 20, "\(reassembler.reservedCapacity) bytes reserved for 1001 received")
    }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 300, input: Generators.bytes.array(of: 1...5)) { plaintexts in
            var reassembler = MessageReassembler(maxMessageLength: 1000)
            for plaintext in plaintexts { _ = try? reassembler.add(plaintext) }
        }
    }
}

func be32(_ value: UInt32) -> [UInt8] {
    var writer = ByteWriter()
    writer.write(value)
    return writer.bytes
}
