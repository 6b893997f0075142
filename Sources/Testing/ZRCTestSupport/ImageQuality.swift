import Foundation

/// How close a lossy picture is to the original, for the JPEG and screen-sharing tests.
public enum ImageQuality {
    /// Peak signal-to-noise ratio in dB over the B, G and R bytes of two BGRX images of the same
    /// size (padding bytes are ignored); infinity when identical.
    public static func psnr(_ a: [UInt8], strideA: Int, _ b: [UInt8], strideB: Int, width: Int, height: Int) -> Double {
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
