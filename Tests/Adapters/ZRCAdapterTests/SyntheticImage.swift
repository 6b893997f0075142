import Foundation

/// Deterministic BGRX test images and the measurements the JPEG tests make on them.
struct SyntheticImage {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    var pixels: [UInt8]

    /// A screen-like pattern: smooth gradients (photos, shading) and, with `sharpDetails`, a
    /// saturated 8×8 checkerboard and 1-pixel lines (UI and text; the worst case for chroma
    /// subsampling). The padding byte is `padding(x, y)`, so tests can fill it with junk.
    static func pattern(width: Int, height: Int, rowPadding: Int = 0, sharpDetails: Bool = true,
                        padding: (Int, Int) -> UInt8 = { _, _ in 0 }) -> SyntheticImage {
        let bytesPerRow = width * 4 + rowPadding
        var pixels = [UInt8](repeating: 0xEE, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                var (r, g, b) = (x * 255 / max(width - 1, 1), y * 255 / max(height - 1, 1), (x + y) * 255 / max(width + height - 2, 1))
                if sharpDetails && x >= width / 2 && y < height / 2 {
                    // 8×8 checkerboard of two saturated colours.
                    let dark = ((x / 8) + (y / 8)) % 2 == 0
                    (r, g, b) = dark ? (20, 30, 160) : (240, 220, 40)
                }
                if sharpDetails && y % 16 == 5 && x < width / 2 { (r, g, b) = (0, 0, 0) }  // thin text-like lines
                let offset = y * bytesPerRow + x * 4
                pixels[offset] = UInt8(b)
                pixels[offset + 1] = UInt8(g)
                pixels[offset + 2] = UInt8(r)
                pixels[offset + 3] = padding(x, y)
            }
        }
        return SyntheticImage(width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels)
    }
}
