import ZRCProtocol
/// Turns an area into a palette and one index per pixel, giving up as soon as it meets more
/// colours than allowed: photographic areas are told apart after a few hundred pixels, so trying
/// costs little where it fails.
enum ColourIndexer {
    /// The colours in order of first appearance (0x00RRGGBB) and each pixel's index, row-major;
    /// nil when `rect` holds more than `limit` (≤ 256) colours.
    static func index(_ image: PixelBuffer, rect: PixelRect, limit: Int) -> (palette: [UInt32], indices: [UInt8])? {
        precondition(limit >= 1 && limit <= 256, "indices are one byte")
        // Open addressing, at most a quarter full: keys hold colour | 1 << 24 (0 marks a free slot).
        let slots = 1024
        var keys = [UInt32](repeating: 0, count: slots)
        var values = [UInt8](repeating: 0, count: slots)
        var palette: [UInt32] = []
        // Reserved, not filled: a photograph is given up on after a few hundred pixels, and
        // zeroing a screenful of indices first would cost more than that.
        var indices: [UInt8] = []
        indices.reserveCapacity(rect.area)
        var tooMany = false
        image.bytes.withUnsafeBytes { raw in
            var previous: UInt32 = 0xFFFF_FFFF
            var previousIndex: UInt8 = 0
            rows: for row in rect.y..<rect.maxY {
                let start = row * image.bytesPerRow + rect.x * 4
                for column in 0..<rect.width {
                    let colour = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + column * 4, as: UInt32.self)) & 0x00FF_FFFF
                    if colour != previous {
                        let key = colour | 1 << 24
                        var slot = Int((colour &* 2_654_435_761) >> 22)
                        while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & (slots - 1) }
                        if keys[slot] == 0 {
                            guard palette.count < limit else {
                                tooMany = true
                                break rows
                            }
                            keys[slot] = key
                            values[slot] = UInt8(palette.count)
                            palette.append(colour)
                        }
                        previous = colour
                        previousIndex = values[slot]
                    }
                    indices.append(previousIndex)
                }
            }
        }
        return tooMany ? nil : (palette, indices)
    }
}
