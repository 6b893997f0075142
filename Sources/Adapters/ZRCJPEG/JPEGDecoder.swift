internal import CTurboJPEG
import ZRCProtocol

/// Decompresses JPEG images to BGRX with libturbojpeg, treating every input as untrusted.
///
/// The header is read first and an image announcing more than `maximumPixelCount` pixels is
/// refused before anything is allocated for it. Truncated or corrupt data is reported as
/// `JPEGError.Kind.damagedData`: libjpeg's warnings (such as premature end of data) abort the decode
/// instead of returning a partly grey image, and progressive images are limited in their number
/// of scans, which bounds the work a hostile image can cause.
///
/// Not Sendable, because a TurboJPEG instance must not be used from two threads at once: give each
/// decoding task (or actor) its own decoder.
public final class JPEGDecoder {
    /// 8192 × 8192: room for an 8K UHD screen (7680 × 4320), and 256 MiB of BGRX at most.
    public static let defaultMaximumPixelCount = 8192 * 8192

    /// The most pixels (width × height) an image may announce and still be decoded.
    public let maximumPixelCount: Int

    /// Replaced after every failure; see `fail(_:)`.
    private var handle: TurboJPEGHandle
    private static let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    public init(maximumPixelCount: Int = JPEGDecoder.defaultMaximumPixelCount) throws(JPEGError) {
        guard maximumPixelCount > 0 else {
            throw JPEGError(.invalidArgument, "the decoder's maximum pixel count must be positive, not \(maximumPixelCount)")
        }
        self.maximumPixelCount = maximumPixelCount
        handle = try TurboJPEGHandle(.decompress)
    }

    /// Reads the header only: size and subsampling. Fails for data that is not a JPEG, for images
    /// that cannot become BGRX, and for images larger than `maximumPixelCount`.
    public func readHeader(_ jpeg: UnsafeRawBufferPointer) throws(JPEGError) -> JPEGImageInfo {
        guard let base = jpeg.baseAddress, !jpeg.isEmpty else {
            throw JPEGError(.damagedData, "the JPEG data is empty")
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = -1, colorspace: Int32 = -1
        let status = tjDecompressHeader3(handle.raw, base.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                         &width, &height, &subsampling, &colorspace)
        guard status == 0 else {
            throw fail(JPEGError(.damagedData, "not a readable JPEG header (\(jpeg.count) bytes): \(handle.lastErrorMessage)"))
        }
        guard width > 0, height > 0 else {
            throw JPEGError(.damagedData, "the JPEG header announces an empty \(width)x\(height) image")
        }
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw JPEGError(.unsupportedImage, "the JPEG is a CMYK image, which cannot be shown as BGRX")
        }
        // Both sides fit in 16 bits in a JPEG header, so the product cannot overflow.
        let info = JPEGImageInfo(width: Int(width), height: Int(height),
                                 subsampling: JPEGSubsampling(turboJPEGValue: subsampling))
        guard info.pixelCount <= maximumPixelCount else {
            throw JPEGError(.imageTooLarge,
                            "the JPEG announces \(info.width)x\(info.height) = \(info.pixelCount) pixels, more than the allowed \(maximumPixelCount)")
        }
        return info
    }

    /// Convenience for data held in an array; see `readHeader(_:)`.
    public func readHeader(_ jpeg: [UInt8]) throws(JPEGError) -> JPEGImageInfo {
        try jpeg.withUnsafeBytes { bytes in Result { () throws(JPEGError) in try readHeader(bytes) } }.get()
    }

    /// Decodes into a caller-provided buffer: row `r` of the image goes to
    /// `destination[r * bytesPerRow ..< r * bytesPerRow + width * 4]`, so the destination can be a
    /// window into a larger framebuffer. Bytes between rows are left alone.
    @discardableResult
    public func decode(
        _ jpeg: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int
    ) throws(JPEGError) -> JPEGImageInfo {
        let info = try readHeader(jpeg)
        let whole = PixelRect(x: 0, y: 0, width: info.width, height: info.height)
        if let problem = whole.problem(inBufferOf: destination.count, bytesPerRow: bytesPerRow) {
            throw JPEGError(.invalidArgument, "cannot decode into the given buffer: \(problem)")
        }
        guard let pitch = Int32(exactly: bytesPerRow), let target = destination.baseAddress else {
            throw JPEGError(.invalidArgument, "a row stride of \(bytesPerRow) bytes is too large for libturbojpeg")
        }
        try decompress(jpeg, info: info, to: target.assumingMemoryBound(to: UInt8.self), pitch: pitch)
        return info
    }

    /// Decodes into a new image that owns its pixels.
    public func decode(_ jpeg: UnsafeRawBufferPointer) throws(JPEGError) -> BGRXImage {
        let info = try readHeader(jpeg)
        let count = info.pixelCount * 4
        var failure: JPEGError?
        // Uninitialised capacity: libturbojpeg writes every byte on success, and on failure the
        // array is dropped with a count of 0, so no uninitialised byte is ever read.
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            do throws(JPEGError) {
                try decompress(jpeg, info: info, to: storage.baseAddress!, pitch: Int32(info.width * 4))
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return BGRXImage(width: info.width, height: info.height, pixels: pixels)
    }

    /// Convenience for data held in an array.
    public func decode(_ jpeg: [UInt8]) throws(JPEGError) -> BGRXImage {
        // withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        try jpeg.withUnsafeBytes { bytes in Result { () throws(JPEGError) in try decode(bytes) } }.get()
    }

    private func decompress(
        _ jpeg: UnsafeRawBufferPointer, info: JPEGImageInfo, to target: UnsafeMutablePointer<UInt8>, pitch: Int32
    ) throws(JPEGError) {
        // readHeader succeeded, so the base address exists.
        let source = jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let status = tjDecompress2(handle.raw, source, UInt(jpeg.count), target, Int32(info.width), pitch,
                                   Int32(info.height), Int32(TJPF_BGRX.rawValue), Self.flags)
        guard status == 0 else {
            let what = handle.lastErrorWasWarning ? "is truncated or damaged" : "cannot be decoded"
            throw fail(JPEGError(.damagedData, "the \(info.width)x\(info.height) JPEG \(what): \(handle.lastErrorMessage)"))
        }
    }

    /// libturbojpeg 2.1 leaves an instance in a half-read state after some failures (a bad header
    /// makes the next, valid image fail with the old error), so a failed instance is never reused:
    /// a fresh one replaces it. If even that cannot be created, the old one stays and the next
    /// call reports whatever it reports; the original error is returned either way.
    private func fail(_ error: JPEGError) -> JPEGError {
        if let fresh = try? TurboJPEGHandle(.decompress) { handle = fresh }
        return error
    }
}
