internal import CZstd

/// The receiving end of a `ZstdStreamCompressor`: decodes each flushed chunk into at most a given
/// number of bytes, so a peer's chunk can never make us allocate more than its rectangle needs.
///
/// Not Sendable, like the compressor: one per session, used inside the session's actor.
public final class ZstdStreamDecompressor {
    /// Largest window a peer may ask for: 2^22 = 4 MiB (ZRC hosts use 1 MiB). A frame header asking
    /// for more is refused before anything is allocated for it.
    public static let maximumWindowLog: Int32 = 22

    private let context: OpaquePointer
    /// Reused between chunks: grows to the largest rectangle seen, never beyond the caller's limit.
    private var scratch: [UInt8] = []

    public init(maximumWindowLog: Int32 = maximumWindowLog) throws(ZstdError) {
        guard let context = ZSTD_createDCtx() else {
            throw ZstdError(.libraryFailure, "libzstd could not create a decompression context")
        }
        self.context = context
        let result = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, maximumWindowLog)
        if ZSTD_isError(result) != 0 {
            ZSTD_freeDCtx(context)
            throw ZstdError(.libraryFailure, "libzstd refused the window limit: \(String(cString: ZSTD_getErrorName(result)))")
        }
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Drops the stream, wherever it was (even midway through a frame): the next chunk must start
    /// a new zstd frame, decoded with no history (a lossless restart, rect encoding 7). The window
    /// limit stays. Also what makes a decompressor usable again after an error.
    public func restart() throws(ZstdError) {
        let result = ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
        if ZSTD_isError(result) != 0 {
            throw ZstdError(.libraryFailure, "libzstd could not reset a stream: \(String(cString: ZSTD_getErrorName(result)))")
        }
    }

    /// The first bytes of every zstd frame (0xFD2FB528, little-endian).
    public static let frameMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// Drops the stream and decodes `chunk` as the first chunk of a new one (rect encoding 7):
    /// it must start a zstd frame (not a skippable one). Limits as for `decompress`.
    public func decompressRestart(_ chunk: [UInt8], maximumSize: Int) throws(ZstdError) -> [UInt8] {
        guard chunk.starts(with: Self.frameMagic) else {
            throw ZstdError(.damagedData, "a lossless restart does not start a zstd frame")
        }
        try restart()
        return try decompress(chunk, maximumSize: maximumSize)
    }

    /// Decodes one chunk completely; throws if it yields more than `maximumSize` bytes or is damaged.
    /// The stream is unusable after an error (the session ends with it).
    public func decompress(_ chunk: [UInt8], maximumSize: Int) throws(ZstdError) -> [UInt8] {
        if scratch.count < maximumSize { scratch = [UInt8](repeating: 0, count: maximumSize) }
        var produced = 0
        let failure: ZstdError? = chunk.withUnsafeBytes { input in
            scratch.withUnsafeMutableBytes { out in
                var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
                var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: maximumSize, pos: 0)
                // Each call makes progress on the input or the output, both bounded: the loop ends.
                while inBuffer.pos < inBuffer.size {
                    let before = (inBuffer.pos, outBuffer.pos)
                    let result = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
                    if ZSTD_isError(result) != 0 {
                        return ZstdError(.damagedData, "a chunk does not decode: \(String(cString: ZSTD_getErrorName(result)))")
                    }
                    if outBuffer.pos == outBuffer.size && inBuffer.pos < inBuffer.size {
                        return ZstdError(.sizeMismatch, "a chunk decodes to more than the \(maximumSize) bytes its rectangle allows")
                    }
                    if (inBuffer.pos, outBuffer.pos) == before {
                        return ZstdError(.damagedData, "a chunk stopped decoding midway")
                    }
                }
                // All input consumed; anything still held back would be more than allowed.
                var spare: UInt8 = 0
                let more = withUnsafeMutablePointer(to: &spare) { pointer -> Int in
                    var extra = ZSTD_outBuffer(dst: pointer, size: 1, pos: 0)
                    var empty = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
                    let result = ZSTD_decompressStream(context, &extra, &empty)
                    return ZSTD_isError(result) != 0 ? -1 : extra.pos
                }
                if more != 0 {
                    return ZstdError(.sizeMismatch, "a chunk decodes to more than the \(maximumSize) bytes its rectangle allows")
                }
                produced = outBuffer.pos
                return nil
            }
        }
        if let failure { throw failure }
        return Array(scratch[0..<produced])
    }
}
