import Testing
import ZRCZstd

/// Self-contained lossless frames (rect encoding 6) over the real libzstd: each decodes on its
/// own, leaves the session's stream alone, and is refused before any allocation when it claims
/// more than its rectangle allows or is not exactly one whole frame.
@Suite struct ZstdFrameTests {
    @Test func framesDecodeOnTheirOwnBesideTheStream() throws {
        let stream = try ZstdStreamCompressor()
        let streamReader = try ZstdStreamDecompressor()
        let frames = try ZstdFrameCompressor()
        let frameReader = try ZstdFrameDecompressor()
        for round in 0..<10 {
            let payload = ZstdStreamTests.text(round, count: 3000 + round)
            let chunk = try stream.compress(payload)
            let frame = try frames.compress(payload)
            // In any order: a frame neither needs nor disturbs the stream's history.
            #expect(try frameReader.decompress(frame, maximumSize: payload.count) == payload, "round \(round)")
            #expect(try streamReader.decompress(chunk, maximumSize: payload.count) == payload, "round \(round)")
        }
    }

    @Test func aFrameDeclaringMoreThanAllowedIsRefused() throws {
        let frame = try ZstdFrameCompressor().compress([UInt8](repeating: 7, count: 10_000))
        #expect(throws: ZstdError(.sizeMismatch, "a lossless frame declares 10000 bytes, more than the 9999 its rectangle allows")) {
            try ZstdFrameDecompressor().decompress(frame, maximumSize: 9_999)
        }
    }

    @Test func aStreamChunkIsNoFrame() throws {
        // A flushed stream chunk declares no size and does not end its frame.
        let chunk = try ZstdStreamCompressor().compress(ZstdStreamTests.text(1, count: 500))
        #expect(throws: ZstdError.self) { try ZstdFrameDecompressor().decompress(chunk, maximumSize: 1000) }
    }

    @Test func twoFramesOrTrailingBytesAreRefused() throws {
        let compressor = try ZstdFrameCompressor()
        let one = try compressor.compress(ZstdStreamTests.text(2, count: 100))
        let decompressor = try ZstdFrameDecompressor()
        #expect(throws: ZstdError.self) { try decompressor.decompress(one + one, maximumSize: 1000) }
        #expect(throws: ZstdError.self) { try decompressor.decompress(one + [0], maximumSize: 1000) }
        #expect(try decompressor.decompress(one, maximumSize: 1000) == ZstdStreamTests.text(2, count: 100), "still usable")
    }

    @Test(arguments: [[UInt8](), [0x28, 0xB5, 0x2F, 0xFD], [UInt8](repeating: 0xAB, count: 64), [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05, 0x29, 0x00, 0x00]])
    func garbageIsAnErrorNotACrash(frame: [UInt8]) throws {
        #expect(throws: ZstdError.self) { try ZstdFrameDecompressor().decompress(frame, maximumSize: 1000) }
    }
}
