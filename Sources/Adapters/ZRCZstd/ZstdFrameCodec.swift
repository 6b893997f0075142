internal import CZstd

/// Self-contained zstd frames, one per call, for lossless rects that must not depend on a
/// session's stream (encoding 6): the host encodes such a rect once and sends the same bytes to
/// every viewer whose picture is the same, and each controller decodes it without touching the
/// stream its other rects continue.
///
/// Not Sendable: a zstd context is mutable state for one thread at a time; one per session's codec.
public final class ZstdFrameCompressor {
    private let context: OpaquePointer
    private let level: Int32
    private var scratch: [UInt8] = []

    public init(level: Int32 = ZstdStreamCompressor.defaultLevel) throws(ZstdError) {
        guard let context = ZSTD_createCCtx() else {
            throw ZstdError(.libraryFailure, "libzstd could not create a compression context")
        }
        self.context = context
        self.level = level
    }

    deinit { ZSTD_freeCCtx(context) }

    /// One frame holding `input`, its size in the header (so its window is no larger than it).
    public func compress(_ input: [UInt8]) throws(ZstdError) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let produced = input.withUnsafeBytes { source in
            scratch.withUnsafeMutableBytes { out in
                ZSTD_compressCCtx(context, out.baseAddress, out.count, source.baseAddress, source.count, level)
            }
        }
        if ZSTD_isError(produced) != 0 {
            throw ZstdError(.libraryFailure, "compressing a frame failed: \(String(cString: ZSTD_getErrorName(produced)))")
        }
        return Array(scratch[0..<produced])
    }
}

/// The receiving end of `ZstdFrameCompressor`: exactly one whole frame per call, whose declared
/// size is checked against the caller's limit before anything is allocated for it.
public final class ZstdFrameDecompressor {
    private let context: OpaquePointer

    public init() throws(ZstdError) {
        guard let context = ZSTD_createDCtx() else {
            throw ZstdError(.libraryFailure, "libzstd could not create a decompression context")
        }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    public func decompress(_ frame: [UInt8], maximumSize: Int) throws(ZstdError) -> [UInt8] {
        let declared: UInt64 = frame.withUnsafeBytes { source in
            // One frame, all of the data: anything before or after it would be ignored silently.
            let length = ZSTD_findFrameCompressedSize(source.baseAddress, source.count)
            guard ZSTD_isError(length) == 0, length == source.count else { return UInt64.max }
            return ZSTD_getFrameContentSize(source.baseAddress, source.count)
        }
        // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two largest values: both fail here.
        guard declared <= UInt64(maximumSize) else {
            if declared >= UInt64.max - 1 {
                throw ZstdError(.damagedData, "a lossless frame is not one whole zstd frame declaring its size")
            }
            throw ZstdError(.sizeMismatch, "a lossless frame declares \(declared) bytes, more than the \(maximumSize) its rectangle allows")
        }
        let size = Int(declared)
        var output = [UInt8](repeating: 0, count: size)
        let produced = frame.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { out in
                // Decoded straight into `output`: no window is allocated beyond it.
                ZSTD_decompressDCtx(context, out.baseAddress, out.count, source.baseAddress, source.count)
            }
        }
        if ZSTD_isError(produced) != 0 {
            throw ZstdError(.damagedData, "a lossless frame does not decode: \(String(cString: ZSTD_getErrorName(produced)))")
        }
        guard produced == size else {
            throw ZstdError(.sizeMismatch, "a lossless frame decodes to \(produced) bytes, not the \(size) it declares")
        }
        return output
    }
}
