import Testing
import ZRCZstd

/// The session's lossless stream over the real libzstd: chunks decode on arrival, refer back to
/// earlier ones, and a peer's chunk can never decode to more than its rectangle allows.
@Suite struct ZstdStreamTests {
    static func text(_ seed: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 * 7 + seed) % 23 + 65) }
    }

    @Test func chunksDecodeInOrderAndRepeatsCostLittle() throws {
        let compressor = try ZstdStreamCompressor()
        let decompressor = try ZstdStreamDecompressor()
        var sizes: [Int] = []
        for round in 0..<20 {
            let payload = Self.text(round % 3, count: 4000 + round)
            let chunk = try compressor.compress(payload)
            sizes.append(chunk.count)
            #expect(try decompressor.decompress(chunk, maximumSize: payload.count) == payload, "round \(round)")
        }
        // The first chunk of each pattern is new; later ones mostly refer back to the history.
        #expect(sizes[3...].allSatisfy { $0 < sizes[0] })
    }

    @Test func aChunkLargerThanAllowedIsRefused() throws {
        let compressor = try ZstdStreamCompressor()
        let decompressor = try ZstdStreamDecompressor()
        let chunk = try compressor.compress([UInt8](repeating: 7, count: 10_000))
        #expect(throws: ZstdError.self) { try decompressor.decompress(chunk, maximumSize: 9_999) }
    }

    @Test(arguments: [[UInt8](), [0x28, 0xB5, 0x2F, 0xFD], [UInt8](repeating: 0xAB, count: 64), [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xFF, 0xFF, 0xFF]])
    func garbageIsAnErrorNotACrash(chunk: [UInt8]) throws {
        let decompressor = try ZstdStreamDecompressor()
        // An empty or header-only chunk decodes to nothing; anything that is not zstd is an error.
        do {
            let output = try decompressor.decompress(chunk, maximumSize: 1000)
            #expect(output.isEmpty)
        } catch {
            #expect(error.kind == .damagedData || error.kind == .sizeMismatch)
        }
    }

    /// A window beyond the decoder's limit is refused before it costs the memory.
    @Test func anOversizedWindowIsRefused() throws {
        let compressor = try ZstdStreamCompressor(windowLog: 24)
        let decompressor = try ZstdStreamDecompressor()
        let chunk = try compressor.compress(Self.text(1, count: 1000))
        #expect(throws: ZstdError.self) { try decompressor.decompress(chunk, maximumSize: 1000) }
    }
}
