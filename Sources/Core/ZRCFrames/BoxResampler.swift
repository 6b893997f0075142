public import ZRCProtocol
/// The one box filter of host and viewer: each target pixel is the mean of a box of source
/// pixels (every source pixel counted once when shrinking, so text stays legible; a box of one
/// pixel — the nearest — when enlarging, so zoomed pixels stay crisp). The host's `PictureScaler`
/// and the viewer's `FrameScaler` only decide the boxes.
public struct BoxResampler: Sendable {
    /// The source pixels behind one target column (or row): the first, and how many.
    public struct Span: Sendable, Equatable {
        public var start: Int32
        public var count: Int32

        public init(start: Int, count: Int) {
            self.start = Int32(start)
            self.count = Int32(count)
        }
    }

    public let columns: [Span]
    public let rows: [Span]
    /// 2^32 / n, rounded, for box sizes up to 4096 pixels (a multiply instead of a divide);
    /// larger boxes (a tiny picture of a large screen) divide.
    private let reciprocals: [UInt64]

    public init(columns: [Span], rows: [Span]) {
        self.columns = columns
        self.rows = rows
        let widest = Int(columns.map(\.count).max() ?? 1), tallest = Int(rows.map(\.count).max() ?? 1)
        reciprocals = (0...min(4096, max(1, widest * tallest))).map { (count: Int) -> UInt64 in
            count == 0 ? 0 : ((1 << 32) + UInt64(count / 2)) / UInt64(count)
        }
    }

    /// Target columns (rows) 0..<`target` showing source columns (rows) `offset`..<`offset + source`,
    /// each box as even as integer division makes it; never empty.
    public static func shrinking(target: Int, source: Int, offset: Int) -> [Span] {
        (0..<target).map { index in
            let start = index * source / target, end = max(start + 1, (index + 1) * source / target)
            return Span(start: offset + start, count: end - start)
        }
    }

    /// Draws target rectangle `area` of `target`; column `x` of it uses span `x - origin.x`, row
    /// `y` span `y - origin.y`. The padding byte of every pixel written is 0.
    public func draw(_ area: PixelRect, into target: inout PixelBuffer, origin: (x: Int, y: Int), from source: PixelBuffer) {
        let columns = columns, rows = rows, reciprocals = reciprocals
        let sourceStride = source.bytesPerRow / 4, targetStride = target.bytesPerRow / 4
        source.bytes.withUnsafeBytes { sourceBytes in
            let input = sourceBytes.bindMemory(to: UInt32.self)
            target.bytes.withUnsafeMutableBytes { targetBytes in
                let output = targetBytes.bindMemory(to: UInt32.self)
                for y in area.y..<area.maxY {
                    let row = rows[y - origin.y]
                    let targetRow = y * targetStride
                    for x in area.x..<area.maxX {
                        let column = columns[x - origin.x]
                        if row.count == 1, column.count == 1 {
                            output[targetRow + x] = input[Int(row.start) * sourceStride + Int(column.start)] & UInt32(0x00FF_FFFF).littleEndian
                            continue
                        }
                        var blue: UInt64 = 0, green: UInt64 = 0, red: UInt64 = 0
                        for sy in Int(row.start)..<Int(row.start + row.count) {
                            let base = sy * sourceStride
                            for sx in Int(column.start)..<Int(column.start + column.count) {
                                let pixel = UInt64(UInt32(littleEndian: input[base + sx]))
                                blue &+= pixel & 0xFF
                                green &+= pixel >> 8 & 0xFF
                                red &+= pixel >> 16 & 0xFF
                            }
                        }
                        let count = Int(row.count) * Int(column.count)
                        let mean: UInt32
                        if count < reciprocals.count {
                            // sum ≤ 255 × count, so sum × 2^32 / count stays below 2^40: no overflow.
                            let scale = reciprocals[count]
                            mean = UInt32((red &* scale &+ 1 << 31) >> 32) << 16 | UInt32((green &* scale &+ 1 << 31) >> 32) << 8
                                | UInt32((blue &* scale &+ 1 << 31) >> 32)
                        } else {
                            let half = UInt64(count / 2), n = UInt64(count)
                            mean = UInt32((red + half) / n) << 16 | UInt32((green + half) / n) << 8 | UInt32((blue + half) / n)
                        }
                        output[targetRow + x] = mean.littleEndian
                    }
                }
            }
        }
    }
}
