import ZRCProtocol

/// Writes a picture as a PNG (8-bit RGB), losslessly. The container and the row filters are
/// here, in pure Swift; the deflate compression is given by the caller (zlib, in the `ZRCZlib`
/// adapter), so this module stays free of C.
///
/// Each row gets the filter (None, Sub, Up or Paeth) whose output has the smallest sum of
/// absolute values, libpng's own heuristic: flat areas and repeated rows become runs of zeros
/// that deflate shrinks to almost nothing.
public enum PNGWriter {
    /// `deflate` turns the filtered rows into one zlib stream (RFC 1950).
    public static func encode<Failure: Error>(_ image: PixelBuffer, deflate: ([UInt8]) throws(Failure) -> [UInt8]) throws(Failure) -> [UInt8] {
        var header: [UInt8] = []
        append32(UInt32(image.width), to: &header)
        append32(UInt32(image.height), to: &header)
        header += [8, 2, 0, 0, 0]  // 8 bits per channel, RGB, deflate, adaptive filtering, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", header, into: &file)
        chunk("IDAT", try deflate(filteredRows(image)), into: &file)
        chunk("IEND", [], into: &file)
        return file
    }

    /// The picture as PNG scanlines: one filter-type byte, then the filtered RGB bytes, per row.
    static func filteredRows(_ image: PixelBuffer) -> [UInt8] {
        let rowBytes = image.width * 3
        var out: [UInt8] = []
        out.reserveCapacity(image.height * (1 + rowBytes))
        var previous = [UInt8](repeating: 0, count: rowBytes)
        var current = [UInt8](repeating: 0, count: rowBytes)
        var candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: rowBytes), count: 4)
        for y in 0..<image.height {
            let row = y * image.bytesPerRow
            for x in 0..<image.width {
                current[x * 3] = image.bytes[row + x * 4 + 2]
                current[x * 3 + 1] = image.bytes[row + x * 4 + 1]
                current[x * 3 + 2] = image.bytes[row + x * 4]
            }
            var best = 0
            var bestCost = Int.max
            for filter in 0..<4 {
                let cost = apply(filter: filter, current, previous, into: &candidates[filter])
                if cost < bestCost { (best, bestCost) = (filter, cost) }
            }
            // Filter types: 0 None, 1 Sub, 2 Up, 4 Paeth (3, Average, is rarely the best on screens).
            out.append(best == 3 ? 4 : UInt8(best))
            out += candidates[best]
            swap(&previous, &current)
        }
        return out
    }

    /// Filters one row; returns the sum of the output bytes taken as signed values.
    private static func apply(filter: Int, _ row: [UInt8], _ above: [UInt8], into out: inout [UInt8]) -> Int {
        var cost = 0
        for i in 0..<row.count {
            let left = i >= 3 ? row[i - 3] : 0
            let up = above[i]
            let predictor: UInt8
            switch filter {
            case 0: predictor = 0
            case 1: predictor = left
            case 2: predictor = up
            default: predictor = paeth(left, up, i >= 3 ? above[i - 3] : 0)
            }
            let value = row[i] &- predictor
            out[i] = value
            cost += value < 128 ? Int(value) : 256 - Int(value)
        }
        return cost
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let (pa, pb, pc) = (abs(p - Int(a)), abs(p - Int(b)), abs(p - Int(c)))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    private static func chunk(_ type: String, _ body: [UInt8], into file: inout [UInt8]) {
        append32(UInt32(body.count), to: &file)
        let typed = Array(type.utf8) + body
        file += typed
        append32(CRC32.checksum(typed), to: &file)
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
