import PropertyBased
import Testing
@testable import ZRCProtocol

@Suite struct RecordTests {
    @Test func encodesHeaderAndBody() {
        #expect(Record(type: .handshake, body: [0xAA, 0xBB]).encode() == [0x01, 0, 0, 0, 2, 0xAA, 0xBB])
        #expect(Record(type: .transport, body: [7]).encode() == [0x02, 0, 0, 0, 1, 7])
    }

    static let headerCases: [(header: [UInt8], kind: WireError.Kind?)] = [
        ([0x02, 0x00, 0x00, 0xFF, 0xFF], nil),  // max: waits for the body
        ([0x01, 0x00, 0x01, 0x00, 0x00], .lengthTooLarge),  // max + 1
        ([0x02, 0xFF, 0xFF, 0xFF, 0xFF], .lengthTooLarge),
        ([0x02, 0x80, 0x00, 0x00, 0x00], .lengthTooLarge),
        ([0x01, 0x00, 0x00, 0x00, 0x00], .emptyRecord),
        ([0x02, 0x00, 0x00, 0x00, 0x00], .emptyRecord),
        ([0x00, 0x00, 0x00, 0x00, 0x01], .unknownRecordType),
        ([0x03, 0x00, 0x00, 0x00, 0x01], nil),  // a reject record: waits for its body
        ([0x04, 0x00, 0x00, 0x00, 0x01], .unknownRecordType),
        ([0x17, 0x03, 0x03, 0x00, 0x10], .unknownRecordType),  // a TLS record
    ]

    /// A bad header fails as soon as its 5 bytes are in, without waiting for a body.
    @Test(arguments: headerCases)
    func headers(header: [UInt8], kind: WireError.Kind?) {
        var decoder = RecordDecoder()
        let result = errorKind { () throws(WireError) in try decoder.feed(header) }
        #expect(result == kind)
        if kind == nil { #expect(decoder.bufferedByteCount == 5) }
    }

    @Test func maxBodyDecodes() throws {
        let body = [UInt8](repeating: 0x5A, count: WireLimits.maxRecordBody)
        var decoder = RecordDecoder()
        let records = try decoder.feed(Record(type: .transport, body: body).encode())
        #expect(records == [Record(type: .transport, body: body)])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func drainsEveryCompleteRecordAndKeepsThePartialOne() throws {
        let a = Record(type: .handshake, body: [1, 2, 3]).encode()
        let b = Record(type: .transport, body: [4]).encode()
        let c = Record(type: .transport, body: [5, 6]).encode()
        var decoder = RecordDecoder()
        let records = try decoder.feed(a + b + c.prefix(4))
        #expect(records.map(\.body) == [[1, 2, 3], [4]])
        #expect(decoder.bufferedByteCount == 4)
        #expect(try decoder.feed([]) == [])
        #expect(decoder.bufferedByteCount == 4)  // too few bytes: state untouched
        #expect(try decoder.feed(c.dropFirst(4)).map(\.body) == [[5, 6]])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func decodeRecordLeavesInputAloneWhenIncomplete() throws {
        let bytes = Record(type: .transport, body: [1, 2, 3]).encode()
        for count in 0..<bytes.count {
            #expect(try RecordDecoder.decodeRecord(from: bytes.prefix(count)) == nil)
        }
        let decoded = try RecordDecoder.decodeRecord(from: (bytes + [0x02])[...])
        #expect(decoded?.consumed == bytes.count)
    }

    @Test func errorsAreFinal() {
        var decoder = RecordDecoder()
        #expect(errorKind { () throws(WireError) in try decoder.feed([0x09, 0, 0, 0, 1, 0]) } == .unknownRecordType)
        #expect(errorKind { () throws(WireError) in try decoder.feed(Record(type: .transport, body: [1]).encode()) }
            == .unknownRecordType)
    }

    /// A record begun in one read is completed from the next, which is then cut directly: a bad
    /// header split across reads fails as soon as its fifth byte is in, whatever follows it, and
    /// a collection without contiguous storage takes the buffered way with the same result.
    @Test(arguments: [1, 2, 4]) func aHeaderSplitAcrossReadsIsCheckedWhenWhole(firstPart: Int) throws {
        let good = Record(type: .transport, body: [7, 8, 9]).encode()
        let bad: [UInt8] = [0x09, 0, 0, 0, 3, 1, 2, 3]
        var decoder = RecordDecoder()
        #expect(try decoder.feed(good + bad.prefix(firstPart)).map(\.body) == [[7, 8, 9]])
        #expect(errorKind { () throws(WireError) in try decoder.feed(bad.dropFirst(firstPart) + good) } == .unknownRecordType)

        // The read that completes the header ends there: the error comes without the body, and
        // stays (an error is final).
        var early = RecordDecoder()
        #expect(try early.feed(good + bad.prefix(firstPart)).count == 1)
        #expect(errorKind { () throws(WireError) in try early.feed(bad[firstPart..<Record.headerLength]) } == .unknownRecordType)
        #expect(errorKind { () throws(WireError) in try early.feed(good) } == .unknownRecordType)

        var split = RecordDecoder()
        #expect(try split.feed(good.prefix(firstPart)) == [])
        #expect(try split.feed((good.dropFirst(firstPart) + good + good.prefix(firstPart)).lazy.map { $0 }).count == 2)
        #expect(try split.feed(good.dropFirst(firstPart)).map(\.body) == [[7, 8, 9]])
        #expect(split.bufferedByteCount == 0)
    }

    @Test func recordsSurviveAnyChunking() async {
        let bodies = Generator<[[UInt8]], Shrink.None<[[UInt8]]>> { rng in
            (0..<Int.random(in: 1...10, using: &rng)).map { _ in
                RandomValues.bytes(in: 1...(Bool.random(using: &rng) ? 40 : WireLimits.maxRecordBody), &rng)
            }
        }
        await propertyCheck(count: 50, input: bodies, Generators.seed) { bodies, seed in
            let records = bodies.enumerated().map { Record(type: $0 % 3 == 0 ? .handshake : .transport, body: $1) }
            let stream = records.flatMap { $0.encode() }
            var decoder = RecordDecoder()
            var decoded: [Record] = []
            for chunk in randomChunks(stream, seed: seed) {
                decoded += try decoder.feed(chunk)
                #expect(decoder.bufferedByteCount < Record.headerLength + WireLimits.maxRecordBody)
            }
            #expect(decoded == records)
        }
    }

    /// Random bytes: records or an error, never a crash, and never a buffer above one record.
    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 500, input: Generators.bytes) { bytes in
            var decoder = RecordDecoder()
            _ = try? decoder.feed(bytes)
            #expect(decoder.bufferedByteCount < Record.headerLength + WireLimits.maxRecordBody)
        }
    }
}
