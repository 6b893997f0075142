import ZRCProtocol

/// A rectangle read from (or written to) a 4-byte-per-pixel buffer.
extension PixelRect {
    /// Why this region cannot be read from (or written to) a 4-byte-per-pixel buffer of `byteCount`
    /// bytes with `bytesPerRow` bytes per row, or nil when it fits. Every product is computed with
    /// overflow checks, so hostile geometry yields a message instead of a trap.
    func problem(inBufferOf byteCount: Int, bytesPerRow: Int) -> String? {
        if width <= 0 || height <= 0 { return "region \(self) is empty" }
        if x < 0 || y < 0 { return "region \(self) starts at a negative coordinate" }
        let (rightEdge, o1) = x.addingReportingOverflow(width)
        let (rowBytes, o2) = rightEdge.multipliedReportingOverflow(by: 4)
        if o1 || o2 { return "region \(self) is too wide" }
        if bytesPerRow < rowBytes {
            return "a row stride of \(bytesPerRow) bytes cannot hold region \(self), which needs \(rowBytes)"
        }
        let (lastRowStart, o3) = (y + height - 1).multipliedReportingOverflow(by: bytesPerRow)
        let (needed, o4) = lastRowStart.addingReportingOverflow(rowBytes)
        if o3 || o4 || needed > byteCount {
            return "region \(self) with a stride of \(bytesPerRow) needs \(o3 || o4 ? "more than Int.max" : "\(needed)") bytes, the buffer has \(byteCount)"
        }
        return nil
    }

    /// Byte offset of the region's first pixel; call only after `problem` returned nil.
    func startOffset(bytesPerRow: Int) -> Int { y * bytesPerRow + x * 4 }
}
