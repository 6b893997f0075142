import Foundation
import Testing

/// Reads a PNG with code that shares nothing with ZRC's writer: netpbm's `pngtopnm` (libpng),
/// whose binary PPM output is plain RGB.
public enum IndependentPNGReader {
    public struct Picture: Sendable {
        public let width: Int
        public let height: Int
        /// RGB, three bytes per pixel, rows top to bottom.
        public let rgb: [UInt8]

        public func pixel(x: Int, y: Int) -> UInt32 {
            let offset = (y * width + x) * 3
            return UInt32(rgb[offset]) << 16 | UInt32(rgb[offset + 1]) << 8 | UInt32(rgb[offset + 2])
        }
    }

    public static func read(_ file: String) async throws -> Picture {
        let ppm = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-ppm-\(UUID().uuidString).ppm").path
        defer { try? FileManager.default.removeItem(atPath: ppm) }
        let result = try await XTool.output("sh", ["-c", "pngtopnm '\(file)' > '\(ppm)'"])
        try #require(result.status == 0, "pngtopnm could not read the PNG (netpbm, Tools/install-deps.sh): \(result.text)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ppm)))
        // "P6" width height maxval, each after whitespace, then one whitespace byte and the pixels.
        var fields: [Int] = []
        var index = 2
        try #require(bytes.starts(with: Array("P6".utf8)), "not a binary PPM")
        while fields.count < 3, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
            var value = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        try #require(fields.count == 3 && fields[2] == 255, "unexpected PPM header \(fields)")
        let (width, height) = (fields[0], fields[1])
        try #require(bytes.count - index == width * height * 3, "PPM holds \(bytes.count - index) bytes for \(width)x\(height)")
        return Picture(width: width, height: height, rgb: Array(bytes[index...]))
    }
}
