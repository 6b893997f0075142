import Testing
import ZRCFrames
import ZRCProtocol

/// Lossless restarts (encoding 7) at the frame level, with a stand-in stream whose every chunk
/// says which history it continues: a controller decodes a chunk only when it holds exactly that
/// history, drops its stream on a restart wherever it was, and refuses a restart that does not
/// start a stream; and a stream takes another's update with chunks only when told the streams
/// agree.
@Suite struct LosslessRestartTests {
    /// A chunk is the history it continues (8 bytes, 0 at a stream's start) and the payload; the
    /// history then becomes a hash of both. A restart's chunk must continue history 0.
    struct HistoryCodec: RegionEncoder, RegionDecoder {
        var history: UInt64 = 0
        /// What the next `losslessContent` does: continue, or restart (a new stream).
        var restartNext = false

        static func advance(_ history: UInt64, _ payload: [UInt8]) -> UInt64 {
            payload.reduce(history &* 0x100_0000_01B3 ^ 0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        }

        mutating func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] { image.crop(rect) }
        mutating func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws { image.blit(data, into: rect) }

        mutating func compressLossless(_ payload: [UInt8]) throws -> [UInt8] {
            defer { history = Self.advance(history, payload) }
            return withUnsafeBytes(of: history.bigEndian, Array.init) + payload
        }

        mutating func losslessContent(_ payload: [UInt8]) throws -> FrameRect.Content {
            guard restartNext else { return .lossless(try compressLossless(payload)) }
            restartNext = false
            history = 0
            return .losslessRestart(try compressLossless(payload))
        }

        func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] { payload }

        mutating func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
            guard chunk.count >= 8, chunk.count - 8 <= maximumSize else { throw FrameError("a chunk of the wrong size") }
            let continues = chunk.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard continues == history else { throw FrameError("a chunk continues another history") }
            let payload = Array(chunk.dropFirst(8))
            history = Self.advance(history, payload)
            return payload
        }

        mutating func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] { frame }

        mutating func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
            history = 0
            return try decompressLossless(chunk, maximumSize: maximumSize)
        }
    }

    static func strip(_ colour: UInt32, width: Int = 8) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: 2)
        pixels.fill(PixelRect(x: 0, y: 0, width: width, height: 1), rgb: colour)
        return pixels
    }

    static func update(_ id: UInt64, _ rects: [FrameRect]) -> FrameUpdate {
        FrameUpdate(frameID: id, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0, screenWidth: 8, screenHeight: 2, quality: 0, rects: rects)
    }

    static func rect(_ content: FrameRect.Content) -> FrameRect { FrameRect(x: 0, y: 0, width: 8, height: 2, content: content) }

    /// Two controllers with different histories take the same restart and the chunks after it,
    /// and end with the same picture; without the restart, the one with history could not.
    @Test func aRestartBringsControllersWithDifferentHistoriesInStep() throws {
        var host = HistoryCodec(), other = HistoryCodec()
        var (a, b) = (FrameCompositor(), FrameCompositor())
        var (decoderA, decoderB) = (HistoryCodec(), HistoryCodec())
        // A has history: chunks of another stream.
        for (id, colour) in [(UInt64(1), UInt32(0x112233)), (2, 0x445566)] {
            try a.apply(Self.update(id, [Self.rect(try other.losslessContent(LosslessPixels.payload(Self.strip(colour), rect: PixelRect(x: 0, y: 0, width: 8, height: 2))))]),
                        decoder: &decoderA)
        }
        host.restartNext = true
        var sent: [FrameUpdate] = []
        for (id, colour) in [(UInt64(3), UInt32(0xFF0000)), (4, 0x00FF00), (5, 0x0000FF)] {
            let payload = LosslessPixels.payload(Self.strip(colour), rect: PixelRect(x: 0, y: 0, width: 8, height: 2))
            sent.append(Self.update(id, [Self.rect(try host.losslessContent(payload))]))
        }
        guard case .losslessRestart = sent[0].rects[0].content else { Issue.record("the first chunk is a restart"); return }
        for update in sent {
            try a.apply(update, decoder: &decoderA)
            try b.apply(update, decoder: &decoderB)
        }
        #expect(a.framebuffer == Self.strip(0x0000FF) && b.framebuffer == a.framebuffer)
        // The same chunks without the restart's encoding: A's history is the wrong one.
        var stale = FrameCompositor(), staleDecoder = HistoryCodec()
        var unrelated = HistoryCodec()
        try stale.apply(Self.update(1, [Self.rect(.lossless(try unrelated.compressLossless(LosslessPixels.payload(Self.strip(0x010203), rect: PixelRect(x: 0, y: 0, width: 8, height: 2)))))]), decoder: &staleDecoder)
        guard case .losslessRestart(let chunk) = sent[0].rects[0].content else { return }
        #expect(throws: FrameError.self) { try stale.apply(Self.update(2, [Self.rect(.lossless(chunk))]), decoder: &staleDecoder) }
    }

    /// Restarts in odd places: as the first lossless rect of a session, twice in a row in one
    /// update, between two chunks of one update; each decodes like a fresh stream. A restart that
    /// does not start a stream (a chunk from the middle of one) is an error, and so is one larger
    /// than its rect allows.
    @Test func restartsInOddPlaces() throws {
        let area = PixelRect(x: 0, y: 0, width: 8, height: 2)
        let payloads = [0x102030, 0x405060, 0x708090, 0xA0B0C0].map { LosslessPixels.payload(Self.strip(UInt32($0)), rect: area) }
        var host = HistoryCodec()
        host.restartNext = true
        let first = try host.losslessContent(payloads[0])
        host.restartNext = true
        let second = try host.losslessContent(payloads[1])
        let third = try host.losslessContent(payloads[2])
        host.restartNext = true
        let fourth = try host.losslessContent(payloads[3])
        var view = FrameCompositor(), decoder = HistoryCodec()
        try view.apply(Self.update(1, [Self.rect(first), Self.rect(second)]), decoder: &decoder)
        try view.apply(Self.update(2, [Self.rect(third), Self.rect(fourth)]), decoder: &decoder)
        #expect(view.framebuffer == Self.strip(0xA0B0C0))
        // From the middle of a stream: it continues a history a restart does not have.
        guard case .lossless(let middle) = third else { Issue.record("a chunk continuing the stream"); return }
        #expect(throws: FrameError.self) { try view.apply(Self.update(3, [Self.rect(.losslessRestart(middle))]), decoder: &decoder) }
        // Larger than an 8×2 rect's payload can be.
        var fresh = FrameCompositor(), freshDecoder = HistoryCodec()
        let oversize = FrameRect.Content.losslessRestart([UInt8](repeating: 0, count: 8) + [UInt8](repeating: 1, count: 1000))
        #expect(throws: FrameError.self) { try fresh.apply(Self.update(1, [Self.rect(oversize)]), decoder: &freshDecoder) }
    }

    /// Encoding 7 round-trips in full and compact frames, and is a chunk of a stream: an update
    /// holding one is taken by another stream only when the streams agree.
    @Test func restartsTravelAndAreStreamChunks() throws {
        let restart = FrameRect(x: 1, y: 2, width: 3, height: 4, content: .losslessRestart([0x28, 0xB5, 0x2F, 0xFD, 9]))
        let update = FrameUpdate(frameID: 1, captureMicros: 1, encodeDoneMicros: 2, sendMicros: 3, screenWidth: 8, screenHeight: 8, quality: 0,
                                 rects: [restart])
        #expect(try ZRCMessage.decode(ZRCMessage.frameUpdate(update).encode()) == .frameUpdate(update))
        var context = CompactFrameContext()
        let compact = context.message(for: update)
        var reading = CompactFrameContext()
        guard case .compactFrame(let frame) = try ZRCMessage.decode(compact.encode()) else { Issue.record("a compact frame"); return }
        #expect(try reading.expand(frame).rects == [restart])
        #expect(FrameStream.holdsStreamChunks(update) && !FrameStream.isShareable(update))
        var stream = FrameStream(configuration: .init(tileSize: 16, encodings: [.losslessRects, .sharedLosslessStream]))
        let state = stream.pictureState
        #expect(stream.adopt(update, state: state) == nil, "without agreement, chunks are another session's")
        #expect(stream.adopt(update, state: state, streamAgreed: true)?.rects == [restart])
    }
}
