internal import CTurboJPEG
public import ZRCProtocol

/// Compresses rectangles of a BGRX pixel buffer to baseline JPEG with libturbojpeg.
///
/// Pixels are read in place (`TJPF_BGRX`): no conversion pass, and the fourth byte of each pixel is
/// padding that never influences the output (depth-24 X servers do not always zero it). One encoder
/// keeps its TurboJPEG instance and its output buffer for its whole life, so steady-state encoding
/// allocates nothing once the buffer has grown to the largest region seen.
///
/// Not Sendable, because a TurboJPEG instance must not be used from two threads at once: give each
/// encoding task (or actor) its own encoder.
public final class JPEGEncoder {
    /// libjpeg's largest image side (`JPEG_MAX_DIMENSION`).
    public static let maximumSide = 65_500

    /// Replaced after a failed compression, like the decoder's (libjpeg state after an error is
    /// not something to build on).
    private var handle: TurboJPEGHandle
    private let buffer = TurboJPEGBuffer()

    public init() throws(JPEGError) {
        handle = try TurboJPEGHandle(.compress)
    }

    /// Encodes `region` of `pixels` (4 bytes per pixel in memory order B, G, R, X; `bytesPerRow`
    /// bytes from one row to the next) and replaces the contents of `output` with the JPEG, keeping
    /// `output`'s capacity so a reused array does not reallocate.
    ///
    /// - Parameters:
    ///   - quality: 1 (smallest) … 100 (best).
    ///   - subsampling: chroma subsampling; `.yuv444` for sharp text.
    public func encode(
        bgrx pixels: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect,
        quality: Int, subsampling: JPEGSubsampling, into output: inout [UInt8]
    ) throws(JPEGError) {
        let size = try compress(pixels, bytesPerRow: bytesPerRow, region: region, quality: quality,
                                subsampling: subsampling)
        output.removeAll(keepingCapacity: true)
        // `compress` left `size` bytes of JPEG at the start of the buffer.
        guard let start = buffer.pointer else { return }
        output.append(contentsOf: UnsafeBufferPointer(start: start, count: size))
    }

    /// Encodes `region` of `pixels` into a new array; see `encode(bgrx:bytesPerRow:region:quality:subsampling:into:)`.
    public func encode(
        bgrx pixels: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect,
        quality: Int, subsampling: JPEGSubsampling
    ) throws(JPEGError) -> [UInt8] {
        var output: [UInt8] = []
        try encode(bgrx: pixels, bytesPerRow: bytesPerRow, region: region, quality: quality,
                   subsampling: subsampling, into: &output)
        return output
    }

    /// Runs tjCompress2 into the reusable buffer and returns the JPEG's length.
    private func compress(
        _ pixels: UnsafeRawBufferPointer, bytesPerRow: Int, region: PixelRect,
        quality: Int, subsampling: JPEGSubsampling
    ) throws(JPEGError) -> Int {
        guard (1...100).contains(quality) else {
            throw JPEGError(.invalidArgument, "JPEG quality must be between 1 and 100, not \(quality)")
        }
        if let problem = region.problem(inBufferOf: pixels.count, bytesPerRow: bytesPerRow) {
            throw JPEGError(.invalidArgument, "cannot encode: \(problem)")
        }
        guard region.width <= Self.maximumSide, region.height <= Self.maximumSide else {
            throw JPEGError(.invalidArgument,
                            "cannot encode region \(region): JPEG allows at most \(Self.maximumSide) pixels per side")
        }
        guard let pitch = Int32(exactly: bytesPerRow), let base = pixels.baseAddress else {
            throw JPEGError(.invalidArgument, "a row stride of \(bytesPerRow) bytes is too large for libturbojpeg")
        }
        let width = Int32(region.width), height = Int32(region.height)
        let samp = subsampling.turboJPEGValue

        // Sizing the buffer for the worst case up front lets us pass TJFLAG_NOREALLOC: libturbojpeg
        // then never swaps the buffer behind our back, so `buffer` stays the one owner of the memory.
        let worstCase = tjBufSize(width, height, samp)
        guard worstCase != UInt(bitPattern: -1), let bound = Int(exactly: worstCase) else {
            throw JPEGError(.invalidArgument, "libturbojpeg cannot size a buffer for region \(region): \(handle.lastErrorMessage)")
        }
        try buffer.reserve(bound)

        var destination = buffer.pointer
        var jpegSize = UInt(buffer.capacity)
        let source = (base + region.startOffset(bytesPerRow: bytesPerRow)).assumingMemoryBound(to: UInt8.self)
        let status = tjCompress2(handle.raw, source, width, pitch, height, Int32(TJPF_BGRX.rawValue),
                                 &destination, &jpegSize, samp, Int32(quality),
                                 TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)
        guard status == 0 else {
            let error = JPEGError(.encodingFailed, "libturbojpeg could not encode region \(region): \(handle.lastErrorMessage)")
            if let fresh = try? TurboJPEGHandle(.compress) { handle = fresh }
            throw error
        }
        // With TJFLAG_NOREALLOC the library writes into our buffer or fails; anything else would
        // mean it allocated memory we would leak or double-free.
        precondition(destination == buffer.pointer, "libturbojpeg replaced a TJFLAG_NOREALLOC buffer")
        return Int(jpegSize)
    }
}
