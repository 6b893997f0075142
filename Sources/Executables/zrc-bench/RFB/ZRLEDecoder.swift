import ZRCFrames
import ZRCZlib
import ZRCProtocol

/// RFB's ZRLE encoding (16) for a 32-bit, depth-24, little-endian true-colour pixel format: one
/// zlib stream per connection carrying 64×64 tiles, each raw, solid, a packed palette, plain RLE or
/// palette RLE. Colours are CPIXELs: the 3 low bytes, blue first — BGRX without the X.
final class ZRLEDecoder {
    static let tile = 64
    private let stream: ZlibInflater

    init() throws { stream = try ZlibInflater() }

    func read(_ rect: PixelRect, from reader: RFBReader) throws -> RFBPaint {
        let length = Int(try reader.u32())
        // The worst case per pixel is plain RLE of single pixels: 4 bytes; per tile, a palette.
        let tiles = ((rect.width + Self.tile - 1) / Self.tile) * ((rect.height + Self.tile - 1) / Self.tile)
        let bound = rect.area * 4 + tiles * 512
        guard length <= bound else { throw BenchError("ZRLE: \(length) compressed bytes for a \(rect.width)x\(rect.height) rectangle") }
        let data = try stream.inflate(try reader.bytes(length), maximumSize: bound)
        var pixels = [UInt8](repeating: 0, count: rect.area * 4)
        var cursor = TileCursor(data: data)
        for tileY in stride(from: 0, to: rect.height, by: Self.tile) {
            for tileX in stride(from: 0, to: rect.width, by: Self.tile) {
                let tile = PixelRect(x: tileX, y: tileY, width: min(Self.tile, rect.width - tileX), height: min(Self.tile, rect.height - tileY))
                try decodeTile(tile, rowPixels: rect.width, cursor: &cursor, into: &pixels)
            }
        }
        return .pixels(rect, pixels)
    }

    private func decodeTile(_ tile: PixelRect, rowPixels: Int, cursor: inout TileCursor, into pixels: inout [UInt8]) throws {
        let kind = try cursor.byte()
        var index = 0
        func put(_ colour: (UInt8, UInt8, UInt8)) {
            let offset = ((tile.y + index / tile.width) * rowPixels + tile.x + index % tile.width) * 4
            pixels[offset] = colour.0
            pixels[offset + 1] = colour.1
            pixels[offset + 2] = colour.2
            index += 1
        }
        switch kind {
        case 0:
            for _ in 0..<tile.area { put(try cursor.pixel()) }
        case 1:
            let colour = try cursor.pixel()
            for _ in 0..<tile.area { put(colour) }
        case 2...16:
            let palette = try (0..<Int(kind)).map { _ in try cursor.pixel() }
            let bits = kind == 2 ? 1 : kind <= 4 ? 2 : 4
            for _ in 0..<tile.height {
                var byte: UInt8 = 0, left = 0
                for _ in 0..<tile.width {
                    if left == 0 { byte = try cursor.byte(); left = 8 }
                    left -= bits
                    let entry = Int(byte >> left) & ((1 << bits) - 1)
                    guard entry < palette.count else { throw BenchError("ZRLE: palette index \(entry) of \(palette.count)") }
                    put(palette[entry])
                }
            }
        case 128:
            while index < tile.area {
                let colour = try cursor.pixel()
                let run = try cursor.runLength()
                guard run <= tile.area - index else { throw BenchError("ZRLE: a run beyond its tile") }
                for _ in 0..<run { put(colour) }
            }
        case 130...255:
            let palette = try (0..<Int(kind - 128)).map { _ in try cursor.pixel() }
            while index < tile.area {
                let code = try cursor.byte()
                let entry = Int(code & 0x7F)
                guard entry < palette.count else { throw BenchError("ZRLE: palette index \(entry) of \(palette.count)") }
                let run = code & 0x80 != 0 ? try cursor.runLength() : 1
                guard run <= tile.area - index else { throw BenchError("ZRLE: a run beyond its tile") }
                for _ in 0..<run { put(palette[entry]) }
            }
        default:
            throw BenchError("ZRLE: unknown tile subencoding \(kind)")
        }
    }

    /// Reads through one rectangle's decompressed tile data.
    private struct TileCursor {
        let data: [UInt8]
        var offset = 0

        mutating func byte() throws -> UInt8 {
            guard offset < data.count else { throw BenchError("ZRLE: tile data ends early") }
            defer { offset += 1 }
            return data[offset]
        }

        mutating func pixel() throws -> (UInt8, UInt8, UInt8) {
            guard offset + 3 <= data.count else { throw BenchError("ZRLE: tile data ends early") }
            defer { offset += 3 }
            return (data[offset], data[offset + 1], data[offset + 2])
        }

        /// 1 + the sum of bytes up to and including the first that is not 255.
        mutating func runLength() throws -> Int {
            var length = 1
            while true {
                let byte = try self.byte()
                length += Int(byte)
                if byte != 255 { return length }
            }
        }
    }
}
