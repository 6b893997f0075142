import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

/// The whole receive path — records, reassembly, messages — against arbitrary TCP chunking.
@Suite struct StreamTests {
    @Test func randomMessagesSurviveRandomCuts() async {
        await propertyCheck(count: 200, input: Generators.messages, Gen.int(in: 6...200), Generators.seed) {
            messages, limit, seed in
            // A small plaintext limit forces fragmentation even of small messages.
            let stream = encodeStream(messages, fragmenter: MessageFragmenter(maxPlaintextLength: limit))
            let chunked = try decodeStream(randomChunks(stream, seed: seed))
            let whole = try decodeStream([stream[...]])
            #expect(chunked == messages)
            #expect(whole == messages)
        }
    }

    @Test func oneByteAtATime() async {
        await propertyCheck(count: 30, input: Generators.messages, Gen.int(in: 6...100)) { messages, limit in
            let stream = encodeStream(messages, fragmenter: MessageFragmenter(maxPlaintextLength: limit))
            let decoded = try decodeStream(stream.indices.map { stream[$0...$0] })
            #expect(decoded == messages)
        }
    }

    /// Messages larger than a record, at the default limits.
    @Test func largeFramesSpanManyRecords() async {
        let large = Generator<[ZRCMessage], Shrink.None<[ZRCMessage]>> { rng in
            (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                let jpeg = RandomValues.bytes(in: 60_000...300_000, &rng)
                let rect = FrameRect(x: 0, y: 0, width: 640, height: 480, content: .jpeg(jpeg))
                return .frameUpdate(FrameUpdate(
                    frameID: rng.next(), captureMicros: 1, encodeDoneMicros: 2, sendMicros: 3,
                    screenWidth: 1920, screenHeight: 1080, quality: 80, rects: [rect]))
            } + [RandomValues.message(&rng)]
        }
        await propertyCheck(count: 10, input: large, Generators.seed) { messages, seed in
            let decoded = try decodeStream(randomChunks(encodeStream(messages), seed: seed))
            #expect(decoded == messages)
        }
    }

    @Test func fullRawFourKFrameFitsTheDefaultLimit() throws {
        let pixels = [UInt8](repeating: 0x42, count: 3840 * 2160 * 4)
        // 4K is wider than one u16 rect allows, so two halves.
        let halves = [0, 1920].map { x in
            FrameRect(x: UInt16(x), y: 0, width: 1920, height: 2160, content: .raw(bgrx: Array(pixels.prefix(1920 * 2160 * 4))))
        }
        let message = ZRCMessage.frameUpdate(FrameUpdate(
            frameID: 1, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0, screenWidth: 3840, screenHeight: 2160,
            quality: 0, rects: halves))
        let stream = encodeStream([message])
        #expect(try decodeStream([stream[...]]) == [message])
    }

    /// Truncated streams: no message is invented, and the decoder just waits for the rest.
    @Test func truncatedStreamYieldsAPrefixOfTheMessages() async {
        await propertyCheck(count: 100, input: Generators.messages, Generators.seed) { messages, seed in
            let stream = encodeStream(messages, fragmenter: MessageFragmenter(maxPlaintextLength: 50))
            var rng = SplitMix64(seed: seed)
            let cut = Int.random(in: 0..<stream.count, using: &rng)
            let decoded = try decodeStream([stream.prefix(cut)])
            #expect(Array(messages.prefix(decoded.count)) == decoded)
            #expect(decoded.count < messages.count)
        }
    }

    /// Random bytes through the whole path: errors, never crashes or runaway buffers.
    @Test func garbageStreamsNeverCrash() async {
        await propertyCheck(count: 500, input: Generators.bytes, Generators.seed) { bytes, seed in
            _ = try? decodeStream(randomChunks(bytes, seed: seed))
        }
    }

    /// Valid record framing around random plaintexts exercises the reassembler and decoder deeper.
    @Test func garbagePlaintextsInValidRecordsNeverCrash() async {
        await propertyCheck(count: 500, input: Generators.bytes.array(of: 1...6)) { plaintexts in
            var writer = ByteWriter()
            for plaintext in plaintexts where !plaintext.isEmpty {
                Record(type: .transport, body: plaintext).encode(into: &writer)
            }
            _ = try? decodeStream([writer.bytes[...]])
        }
    }
}
