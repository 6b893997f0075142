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
