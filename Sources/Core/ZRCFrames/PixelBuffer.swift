public import ZRCProtocol
/// A BGRX image in memory: 4 bytes per pixel, blue first; the fourth byte is padding, never alpha,
/// and is ignored by every comparison (X servers leave it undefined).
public struct PixelBuffer: Sendable, Equatable {
    public static let bytesPerPixel = 4

    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public var bytes: [UInt8]

    /// A black image.
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "an image cannot have a negative size")
        self.width = width
        self.height = height
        bytesPerRow = width * Self.bytesPerPixel
        bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    }

    /// Wraps existing pixels; `bytes` must hold `height` rows of `bytesPerRow` bytes.
    public init(width: Int, height: Int, bytesPerRow: Int, bytes: [UInt8]) {
        precondition(bytesPerRow >= width * Self.bytesPerPixel && bytes.count >= bytesPerRow * height,
                     "pixel storage too small for \(width)x\(height)")
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.bytes = bytes
    }

    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The pixel at (x, y) as 0x00RRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        let offset = y * bytesPerRow + x * Self.bytesPerPixel
        return UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
    }

    public mutating func setPixel(x: Int, y: Int, rgb: UInt32) {
        let offset = y * bytesPerRow + x * Self.bytesPerPixel
        bytes[offset] = UInt8(rgb & 0xFF)
        bytes[offset + 1] = UInt8(rgb >> 8 & 0xFF)
        bytes[offset + 2] = UInt8(rgb >> 16 & 0xFF)
        bytes[offset + 3] = 0
    }

    /// Fills `rect` (clipped to the image) with one colour.
    public mutating func fill(_ rect: PixelRect, rgb: UInt32) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        let pattern: UInt32 = rgb & 0x00FF_FFFF
        let rowStride = bytesPerRow
        bytes.withUnsafeMutableBytes { raw in
            for row in area.y..<area.maxY {
                let start = raw.baseAddress! + row * rowStride + area.x * Self.bytesPerPixel
                let pixels = start.bindMemory(to: UInt32.self, capacity: area.width)
                pixels.update(repeating: pattern.littleEndian, count: area.width)
            }
        }
    }

    /// Copies `source` (a tightly packed BGRX block of `rect`'s size) into `rect`.
    public mutating func blit(_ source: [UInt8], into rect: PixelRect) {
        precondition(rect.intersection(bounds) == rect, "blit outside the image")
        precondition(source.count >= rect.area * Self.bytesPerPixel, "blit source too small")
        let rowBytes = rect.width * Self.bytesPerPixel
        let rowStride = bytesPerRow
        bytes.withUnsafeMutableBytes { target in
            source.withUnsafeBytes { from in
                for row in 0..<rect.height {
                    let destination = target.baseAddress! + (rect.y + row) * rowStride + rect.x * Self.bytesPerPixel
                    destination.copyMemory(from: from.baseAddress! + row * rowBytes, byteCount: rowBytes)
                }
            }
        }
    }

    /// Copies `rect` from `other` (an image of the same size) into the same place here.
    public mutating func copy(_ rect: PixelRect, from other: PixelBuffer) {
        precondition(other.width == width && other.height == height, "copy between images of different sizes")
        guard !rect.isEmpty else { return }
        precondition(rect.intersection(bounds) == rect, "copy outside the image")
        let rowBytes = rect.width * Self.bytesPerPixel
        let (targetStride, sourceStride) = (bytesPerRow, other.bytesPerRow)
        bytes.withUnsafeMutableBytes { target in
            other.bytes.withUnsafeBytes { from in
                for row in rect.y..<rect.maxY {
                    (target.baseAddress! + row * targetStride + rect.x * Self.bytesPerPixel).copyMemory(
                        from: from.baseAddress! + row * sourceStride + rect.x * Self.bytesPerPixel, byteCount: rowBytes)
                }
            }
        }
    }

    /// Copies the pixels of `source` to `destination` (same size, both inside the image) as if
    /// through a temporary copy, so overlapping areas move correctly (a scroll).
    public mutating func move(_ source: PixelRect, to destination: PixelRect) {
        precondition(source.width == destination.width && source.height == destination.height, "move between areas of different sizes")
        precondition(source.intersection(bounds) == source && destination.intersection(bounds) == destination, "move outside the image")
        guard !source.isEmpty else { return }
        let rowBytes = source.width * Self.bytesPerPixel
        let stride = bytesPerRow
        // Moving down, the bottom rows go first so no source row is overwritten before it is read;
        // within a row, copyMemory has memmove semantics.
        let rows = destination.y > source.y ? Array((0..<source.height).reversed()) : Array(0..<source.height)
        bytes.withUnsafeMutableBytes { raw in
            for row in rows {
                (raw.baseAddress! + (destination.y + row) * stride + destination.x * Self.bytesPerPixel).copyMemory(
                    from: raw.baseAddress! + (source.y + row) * stride + source.x * Self.bytesPerPixel, byteCount: rowBytes)
            }
        }
    }

    /// The pixels of `rect`, tightly packed.
    public func crop(_ rect: PixelRect) -> [UInt8] {
        precondition(rect.intersection(bounds) == rect, "crop outside the image")
        let rowBytes = rect.width * Self.bytesPerPixel
        var out = [UInt8](repeating: 0, count: rowBytes * rect.height)
        out.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { from in
                for row in 0..<rect.height {
                    target.baseAddress!.advanced(by: row * rowBytes).copyMemory(
                        from: from.baseAddress! + (rect.y + row) * bytesPerRow + rect.x * Self.bytesPerPixel, byteCount: rowBytes)
                }
            }
        }
        return out
    }

    /// Equal images up to the padding byte.
    public static func == (lhs: PixelBuffer, rhs: PixelBuffer) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        return TileComparison.equal(lhs, rhs, in: lhs.bounds)
    }
}
