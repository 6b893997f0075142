import Foundation
import ZRCFrames

/// FNV-1a over the colour bytes of a BGRX picture (padding ignored): the laboratory's controller
/// and the benchmark compare pictures across processes by this.
enum PixelHash {
    static func of(bgrx bytes: [UInt8], width: Int, height: Int, bytesPerRow: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        bytes.withUnsafeBytes { raw in
            for row in 0..<height {
                for column in 0..<width {
                    let pixel = raw.loadUnaligned(fromByteOffset: row * bytesPerRow + column * 4, as: UInt32.self) & 0x00FF_FFFF
                    hash = (hash ^ UInt64(pixel)) &* 0x0000_0100_0000_01B3
                }
            }
        }
        return hash
    }

    static func of(_ image: PixelBuffer) -> UInt64 {
        of(bgrx: image.bytes, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
    }
}

/// How close a picture is to another of the same size: PSNR over the red, green and blue bytes of
/// every pixel (BGRX, padding ignored), in dB; nil when the sizes differ, infinity when equal.
enum PictureFidelity {
    static func psnr(_ picture: PixelBuffer, _ reference: PixelBuffer) -> Double? {
        guard picture.width == reference.width, picture.height == reference.height, picture.width > 0, picture.height > 0 else { return nil }
        var squares: UInt64 = 0
        picture.bytes.withUnsafeBytes { a in
            reference.bytes.withUnsafeBytes { b in
                for row in 0..<picture.height {
                    var rowSum: UInt64 = 0
                    let rowA = row * picture.bytesPerRow, rowB = row * reference.bytesPerRow
                    for column in 0..<picture.width {
                        for channel in 0..<3 {
                            let difference = Int(a[rowA + column * 4 + channel]) - Int(b[rowB + column * 4 + channel])
                            rowSum &+= UInt64(difference * difference)
                        }
                    }
                    squares &+= rowSum
                }
            }
        }
        guard squares > 0 else { return .infinity }
        let meanSquare = Double(squares) / Double(picture.width * picture.height * 3)
        return 10 * log10(255 * 255 / meanSquare)
    }
}
