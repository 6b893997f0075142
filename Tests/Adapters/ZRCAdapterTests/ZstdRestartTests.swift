import Testing
import ZRCZstd

/// Lossless restarts (rect encoding 7) over the real libzstd: a controller drops its stream
/// wherever it was and decodes the restart's chunk, and the chunks after it, exactly as a
/// controller that started with that stream does — the spec's worked example byte for byte — while
/// a restart that does not start a frame, or asks for too much, is refused.
@Suite struct ZstdRestartTests {
    /// The spec's example (wire-protocol.md, *Sharing a lossless stream*): an 8×2 strip, white
    /// above black, as a restart's chunk and then as the chunk continuing it.
    static let payload: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]
    static let restart: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x48, 0x50, 0x00, 0x00] + payload
    static let next: [UInt8] = [0x34, 0x00, 0x00, 0x00, 0x01, 0x00, 0xDD, 0x0A, 0x10]

    @Test func theSpecsExampleDecodesAfterAnyHistory() throws {
        // A: history of its own, midway through its frame. B: none.
        let a = try ZstdStreamDecompressor(), b = try ZstdStreamDecompressor()
        let own = try ZstdStreamCompressor()
        for round in 0..<3 { _ = try a.decompress(try own.compress(ZstdStreamTests.text(round, count: 500)), maximumSize: 500) }
        for viewer in [a, b] {
            #expect(try viewer.decompressRestart(Self.restart, maximumSize: 18) == Self.payload)
            #expect(try viewer.decompress(Self.next, maximumSize: 18) == Self.payload)
        }
        // Without the restart, A's history is the wrong one for the next chunk.
        let stale = try ZstdStreamDecompressor()
        _ = try stale.decompress(try ZstdStreamCompressor().compress(ZstdStreamTests.text(5, count: 500)), maximumSize: 500)
        #expect((try? stale.decompress(Self.next, maximumSize: 18)) != Self.payload)
    }

    /// A new stream's first chunk is the example's (a raw block: nothing to refer back to); the
    /// next one refers back to it, as the example's does (another libzstd may encode that match
    /// in other bytes: the decoding above is what the spec promises).
    @Test func aNewStreamsFirstChunksAreLikeTheExamples() throws {
        let stream = try ZstdStreamCompressor()
        #expect(try stream.compress(Self.payload) == Self.restart)
        let next = try stream.compress(Self.payload)
        #expect(next.count <= Self.next.count)
        #expect(try ZstdStreamDecompressor().decompressRestart(Self.restart, maximumSize: 18) == Self.payload)
    }

    /// Streams restarted at any point — midway through another, several times in a row, as the
    /// very first chunk — decode like fresh ones; every chunk after a restart continues the new one.
    @Test func restartsAnywhereDecodeLikeFreshStreams() throws {
        let decompressor = try ZstdStreamDecompressor()
        var compressor = try ZstdStreamCompressor()
        var rounds = 0
        for pattern in [0, 1, 1, 0, 2, 2, 2, 1] {
            // A new stream at every other step (two in a row at the 1,1 and 2,2 steps).
            if pattern != 0 || rounds == 0 {
                compressor = try ZstdStreamCompressor()
                let payload = ZstdStreamTests.text(rounds, count: 300)
                #expect(try decompressor.decompressRestart(try compressor.compress(payload), maximumSize: 300) == payload)
            }
            for _ in 0..<pattern {
                let payload = ZstdStreamTests.text(rounds % 2, count: 300 + rounds)
                #expect(try decompressor.decompress(try compressor.compress(payload), maximumSize: 400) == payload)
            }
            rounds += 1
        }
    }

    /// A restart's chunk must start a zstd frame: a chunk from the middle of a stream, a skippable
    /// frame, nothing at all are refused (a bare frame header decodes to nothing, which no
    /// payload is); so is one larger than allowed or asking for a window
    /// beyond the limit (the limit survives the restart).
    @Test func hostileRestartsAreRefused() throws {
        let compressor = try ZstdStreamCompressor()
        let first = try compressor.compress(ZstdStreamTests.text(1, count: 1000))
        let middle = try compressor.compress(ZstdStreamTests.text(2, count: 1000))
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 0x00, 0x00, 0x00, 0x00] + first
        let big = try ZstdStreamCompressor(windowLog: 24).compress(ZstdStreamTests.text(1, count: 1000))
        for (chunk, maximum) in [(middle, 2000), (skippable, 2000), ([], 2000), (first, 999), (big, 2000)] {
            let decompressor = try ZstdStreamDecompressor()
            #expect(throws: ZstdError.self) { try decompressor.decompressRestart(chunk, maximumSize: maximum) }
        }
        // After a refused restart, a good one works again (a session ends on the error anyway).
        let decompressor = try ZstdStreamDecompressor()
        _ = try? decompressor.decompressRestart(middle, maximumSize: 2000)
        #expect(try decompressor.decompressRestart(first, maximumSize: 1000) == ZstdStreamTests.text(1, count: 1000))
    }
}
