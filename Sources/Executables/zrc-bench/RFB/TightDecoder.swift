import ZRCFrames
import ZRCZlib
import ZRCProtocol

/// RFB's Tight encoding (7) for a 32-bit, depth-24 true-colour pixel format: fill, JPEG, and the
/// basic compression with its copy, palette and gradient filters over four zlib streams.
/// Colours are TPIXELs: 3 bytes, red first.
final class TightDecoder {
    /// Largest compressed chunk accepted (the protocol's compact length tops out at 4 MiB).
    static let maximumChunk = 1 << 22
    private let streams: [ZlibInflater]

    init() throws {
        streams = try (0..<4).map { _ in try ZlibInflater() }
    }

    func read(_ rect: PixelRect, from reader: RFBReader) throws -> RFBPaint {
        let control = try reader.u8()
        for stream in 0..<4 where control & (1 << stream) != 0 { streams[stream].reset() }
        let kind = control >> 4
        switch kind {
        case 0x08:
            return .fill(rect, rgb: UInt8.rgb(try reader.bytes(3), at: 0))
        case 0x09:
            return .jpeg(rect, try reader.bytes(try compactLength(reader)))
        case 0x00...0x07:
            return try readBasic(rect, stream: Int(kind & 0x03), filter: kind & 0x04 != 0 ? try reader.u8() : 0, reader: reader)
        default:
            throw BenchError("Tight: unsupported compression type \(kind) (neither PNG nor zlib-less basic compression was asked for)")
        }
    }

    private func readBasic(_ rect: PixelRect, stream: Int, filter: UInt8, reader: RFBReader) throws -> RFBPaint {
        var palette: [UInt32] = []
        let rowBytes: Int
        switch filter {
        case 0, 2:
            rowBytes = rect.width * 3
        case 1:
            let count = Int(try reader.u8()) + 1
            let colours = try reader.bytes(count * 3)
            palette = (0..<count).map { UInt8.rgb(colours, at: $0 * 3) }
            rowBytes = count == 2 ? (rect.width + 7) / 8 : rect.width
        default:
            throw BenchError("Tight: unknown filter \(filter)")
        }
        let size = rowBytes * rect.height
        let data: [UInt8]
        if size < 12 {
            data = try reader.bytes(size)
        } else {
            let compressed = try reader.bytes(try compactLength(reader))
            data = try streams[stream].inflate(compressed, maximumSize: size)
            guard data.count == size else { throw BenchError("Tight: a rectangle decoded to \(data.count) of \(size) bytes") }
        }
        var pixels = [UInt8](repeating: 0, count: rect.area * 4)
        switch filter {
        case 1:
            for row in 0..<rect.height {
                for column in 0..<rect.width {
                    let index = palette.count == 2
                        ? Int(data[row * rowBytes + column / 8] >> (7 - column % 8) & 1)
                        : Int(data[row * rowBytes + column])
                    guard index < palette.count else { throw BenchError("Tight: palette index \(index) of \(palette.count)") }
                    Self.store(palette[index], in: &pixels, at: (row * rect.width + column) * 4)
                }
            }
        case 2:
            Self.ungradient(data, width: rect.width, height: rect.height, into: &pixels)
        default:
            for pixel in 0..<rect.area { Self.store(UInt8.rgb(data, at: pixel * 3), in: &pixels, at: pixel * 4) }
        }
        return .pixels(rect, pixels)
    }

    /// The gradient filter: each component was sent as its difference from left + above − above-left
    /// (clamped to 0…255), with zero outside the rectangle.
    private static func ungradient(_ data: [UInt8], width: Int, height: Int, into pixels: inout [UInt8]) {
        for row in 0..<height {
            for column in 0..<width {
                let out = (row * width + column) * 4
                for component in 0..<3 {
                    // BGRX output: red (component 0 of the TPIXEL) goes to byte 2.
                    let channel = 2 - component
                    let left = column > 0 ? Int(pixels[out - 4 + channel]) : 0
                    let above = row > 0 ? Int(pixels[out - width * 4 + channel]) : 0
                    let corner = row > 0 && column > 0 ? Int(pixels[out - width * 4 - 4 + channel]) : 0
                    let predicted = min(255, max(0, left + above - corner))
                    pixels[out + channel] = UInt8((predicted + Int(data[(row * width + column) * 3 + component])) & 0xFF)
                }
            }
        }
    }

    private static func store(_ rgb: UInt32, in pixels: inout [UInt8], at offset: Int) {
        pixels[offset] = UInt8(rgb & 0xFF)
        pixels[offset + 1] = UInt8(rgb >> 8 & 0xFF)
        pixels[offset + 2] = UInt8(rgb >> 16 & 0xFF)
    }

    /// Tight's 1–3 byte length, 7 bits per byte, low bits first.
    private func compactLength(_ reader: RFBReader) throws -> Int {
        var length = 0
        for index in 0..<3 {
            let byte = try reader.u8()
            length |= Int(index == 2 ? byte : byte & 0x7F) << (7 * index)
            if index < 2 && byte & 0x80 == 0 { break }
        }
        guard length <= Self.maximumChunk else { throw BenchError("Tight: a chunk of \(length) bytes is beyond the limit") }
        return length
    }
}
