import Foundation
import Testing

/// Reads a PNG with code that shares nothing with ZRC's writer: Python's zlib and PNG's row
/// filters written out from the specification. Checks every chunk's CRC.
public enum IndependentPNGReader {
    static let script = """
        import struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
        pos, idat = 8, b''
        while pos < len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]
            if kind == b'IHDR': width, height = struct.unpack('>II', body[:8])
            if kind == b'IDAT': idat += body
            pos += 12 + length
        raw = zlib.decompress(idat)
        stride = width * 3
        prev = bytearray(stride)
        out = ['%d %d' % (width, height)]
        for y in range(height):
            kind = raw[y * (stride + 1)]
            row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = row[i - 3] if i >= 3 else 0
                b = prev[i]
                c = prev[i - 3] if i >= 3 else 0
                if kind == 1: row[i] = (row[i] + a) & 255
                elif kind == 2: row[i] = (row[i] + b) & 255
                elif kind == 3: row[i] = (row[i] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                else: assert kind == 0, kind
            prev = row
            out.append(row.hex())
        print('\\n'.join(out))
        """

    /// The picture's size and its rows, each as hex RGB bytes (`rrggbb` per pixel).
    public static func read(_ file: String) async throws -> (width: Int, height: Int, rows: [String]) {
        let result = try await XTool.output("python3", ["-c", script, file])
        try #require(result.status == 0, "the PNG did not decode: \(result.text)")
        let lines = result.text.split(separator: "\n").map(String.init)
        let size = (lines.first ?? "").split(separator: " ").compactMap { Int($0) }
        try #require(size.count == 2, "no size in \(lines.first ?? "")")
        return (size[0], size[1], Array(lines.dropFirst()))
    }

    /// The RGB value of pixel `x` in a row `read` returned.
    public static func pixel(_ row: String, _ x: Int) -> UInt32 {
        let start = row.index(row.startIndex, offsetBy: x * 6)
        return UInt32(row[start..<row.index(start, offsetBy: 6)], radix: 16) ?? 0
    }
}
