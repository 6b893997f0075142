public import ZRCProtocol
/// Pixel comparisons that ignore the padding byte, eight bytes (two pixels) at a time.
public enum TileComparison {
    /// Little-endian BGRX: bytes 3 and 7 of every 8 are padding.
    static let colourMask: UInt64 = 0x00FF_FFFF_00FF_FFFF

    /// Whether `rect` holds the same colours in both images (same size required).
    public static func equal(_ a: PixelBuffer, _ b: PixelBuffer, in rect: PixelRect) -> Bool {
        precondition(a.width == b.width && a.height == b.height, "comparing images of different sizes")
        let area = rect.intersection(a.bounds)
        guard !area.isEmpty else { return true }
        return a.bytes.withUnsafeBytes { left in
            b.bytes.withUnsafeBytes { right in
                for row in area.y..<area.maxY {
                    let l = left.baseAddress! + row * a.bytesPerRow + area.x * 4
                    let r = right.baseAddress! + row * b.bytesPerRow + area.x * 4
                    if !rowsEqual(l, r, pixels: area.width) { return false }
                }
                return true
            }
        }
    }

    @inline(__always)
    static func rowsEqual(_ l: UnsafeRawPointer, _ r: UnsafeRawPointer, pixels: Int) -> Bool {
        var index = 0
        let pairs = pixels / 2
        // Eight pixels per test: one branch per 32 bytes instead of per 8 (the compare of a moved
        // or unchanged screen reads every byte, so this loop is the host's hottest).
        while index + 4 <= pairs {
            let offset = index * 8
            var difference = l.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ r.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            difference |= l.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) ^ r.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            difference |= l.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self) ^ r.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)
            difference |= l.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self) ^ r.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)
            if difference & colourMask != 0 { return false }
            index += 4
        }
        while index < pairs {
            let x = l.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
            let y = r.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
            if (x ^ y) & colourMask != 0 { return false }
            index += 1
        }
        if pixels % 2 == 1 {
            let x = l.loadUnaligned(fromByteOffset: pairs * 8, as: UInt32.self)
            let y = r.loadUnaligned(fromByteOffset: pairs * 8, as: UInt32.self)
            if (x ^ y) & 0x00FF_FFFF != 0 { return false }
        }
        return true
    }

    /// The colour of `rect` (0x00RRGGBB) if every pixel in it has that colour.
    public static func solidColour(of image: PixelBuffer, in rect: PixelRect) -> UInt32? {
        let area = rect.intersection(image.bounds)
        guard !area.isEmpty else { return nil }
        let first = image.pixel(x: area.x, y: area.y)
        let pattern = UInt64(first) | UInt64(first) << 32
        return image.bytes.withUnsafeBytes { raw -> UInt32? in
            for row in area.y..<area.maxY {
                let start = raw.baseAddress! + row * image.bytesPerRow + area.x * 4
                var index = 0
                while index + 1 < area.width {
                    if (start.loadUnaligned(fromByteOffset: index * 4, as: UInt64.self) ^ pattern) & colourMask != 0 { return nil }
                    index += 2
                }
                if index < area.width,
                   (start.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self) ^ first) & 0x00FF_FFFF != 0 {
                    return nil
                }
            }
            return first
        }
    }

    /// The smallest rectangle inside `rect` holding every pixel that differs between the images
    /// (same size required), or nil when none does: changes are sent exactly, not tile by tile.
    public static func differingBounds(_ a: PixelBuffer, _ b: PixelBuffer, in rect: PixelRect) -> PixelRect? {
        precondition(a.width == b.width && a.height == b.height, "comparing images of different sizes")
        let area = rect.intersection(a.bounds)
        guard !area.isEmpty else { return nil }
        return a.bytes.withUnsafeBytes { left in
            b.bytes.withUnsafeBytes { right -> PixelRect? in
                func differs(_ x: Int, _ y: Int) -> Bool {
                    let l = left.loadUnaligned(fromByteOffset: y * a.bytesPerRow + x * 4, as: UInt32.self)
                    let r = right.loadUnaligned(fromByteOffset: y * b.bytesPerRow + x * 4, as: UInt32.self)
                    return (l ^ r) & 0x00FF_FFFF != 0
                }
                func rowDiffers(_ y: Int) -> Bool {
                    !rowsEqual(left.baseAddress! + y * a.bytesPerRow + area.x * 4, right.baseAddress! + y * b.bytesPerRow + area.x * 4,
                               pixels: area.width)
                }
                guard let top = (area.y..<area.maxY).first(where: rowDiffers) else { return nil }
                let bottom = (top..<area.maxY).last(where: rowDiffers)!
                var minX = area.maxX, maxX = area.x - 1
                for y in top...bottom {
                    // Only the columns outside what is already known can widen the bounds.
                    var x = area.x
                    while x < minX && !differs(x, y) { x += 1 }
                    if x < minX { minX = x }
                    var end = area.maxX - 1
                    while end > maxX && !differs(end, y) { end -= 1 }
                    if end > maxX { maxX = end }
                }
                return PixelRect(x: minX, y: top, width: maxX - minX + 1, height: bottom - top + 1)
            }
        }
    }
}
