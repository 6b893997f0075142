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

    /// Peak signal-to-noise ratio in dB over the B, G and R bytes of two images of the same size
    /// (padding bytes are ignored); infinity when identical.
    static func psnr(_ a: [UInt8], strideA: Int, _ b: [UInt8], strideB: Int, width: Int, height: Int) -> Double {
        var squaredError = 0.0
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    let difference = Double(a[y * strideA + x * 4 + channel]) - Double(b[y * strideB + x * 4 + channel])
                    squaredError += difference * difference
                }
            }
        }
        let meanSquaredError = squaredError / Double(width * height * 3)
        if meanSquaredError == 0 { return .infinity }
        return 10 * log10(255 * 255 / meanSquaredError)
    }
}

/// A small deterministic generator (SplitMix64), so "random" test data is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }
}
