internal import CZstd

/// One endless zstd frame, compressed chunk by chunk: every `compress` call returns a flushed
/// chunk the peer's `ZstdStreamDecompressor` can decode completely on arrival, and later chunks
/// refer back to earlier ones (glyphs typed a second ago, lines scrolled up) within the window.
///
/// Not Sendable: a zstd context is mutable state for one thread at a time; each session's encoder
/// owns one, inside the session's actor.
public final class ZstdStreamCompressor {
    /// The window (history) the stream may refer back to: 2^19 = 512 KiB keeps the host's memory
    /// per session small (each doubling costs as much again) and still holds a screenful of text
    /// (a 1080p terminal's glyphs as palette payloads) a few times over.
    public static let defaultWindowLog: Int32 = 19
    /// Match-finder table size (log2 entries) for the hash table; the chain table is half as large.
    static let tableLog: Int32 = 16
    /// zstd's own default level: the speed of zlib's fastest settings at better ratios.
    public static let defaultLevel: Int32 = 3

    private let context: OpaquePointer
    private var scratch: [UInt8]

    public init(level: Int32 = defaultLevel, windowLog: Int32 = defaultWindowLog) throws(ZstdError) {
        guard let context = ZSTD_createCCtx() else {
            throw ZstdError(.libraryFailure, "libzstd could not create a compression context")
        }
        self.context = context
        scratch = []
        // Match-finder tables one size smaller than level 3's own (2^16 entries each instead of
        // 2^17 and 2^16): 384 KiB less per session, for a few per cent of size on text.
        for (parameter, value) in [(ZSTD_c_compressionLevel, level), (ZSTD_c_windowLog, windowLog), (ZSTD_c_hashLog, Self.tableLog),
                                   (ZSTD_c_chainLog, Self.tableLog - 1), (ZSTD_c_checksumFlag, 0)] {
            let result = ZSTD_CCtx_setParameter(context, parameter, value)
            if ZSTD_isError(result) != 0 {
                ZSTD_freeCCtx(context)
                throw ZstdError(.libraryFailure, "libzstd refused a parameter: \(String(cString: ZSTD_getErrorName(result)))")
            }
        }
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Compresses `input` as the stream's next chunk and flushes it.
    public func compress(_ input: UnsafeRawBufferPointer) throws(ZstdError) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count) + 32
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        var produced = 0
        let failure: String? = scratch.withUnsafeMutableBytes { out in
            var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
            var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
            // With room for the compress bound, one flush call normally finishes; the loop covers
            // a library that returns early (a non-zero result means "call again").
            for _ in 0..<64 {
                let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_flush)
                if ZSTD_isError(remaining) != 0 { return String(cString: ZSTD_getErrorName(remaining)) }
                if remaining == 0 && inBuffer.pos == inBuffer.size {
                    produced = outBuffer.pos
                    return nil
                }
                if outBuffer.pos == outBuffer.size { return "the output outgrew the compress bound" }
            }
            return "the flush did not finish"
        }
        if let failure { throw ZstdError(.libraryFailure, "compressing a chunk failed: \(failure)") }
        return Array(scratch[0..<produced])
    }

    public func compress(_ input: [UInt8]) throws(ZstdError) -> [UInt8] {
        // withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        try input.withUnsafeBytes { raw in Result { () throws(ZstdError) in try compress(raw) } }.get()
    }
}
