import Foundation
import Testing
import ZRCFrames

/// The PNG is read back by an independent decoder (Python's zlib) to check every pixel.
@Suite struct PNGWriterTests {
    @Test(arguments: [(1, 1), (3, 2), (300, 250)])
    func pixelsSurviveAnIndependentDecoder(width: Int, height: Int) throws {
        let image = ChangeDetectionTests.pattern(width: width, height: height)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-png-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(PNGWriter.encode(image)).write(to: file)
        let script = """
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
            stride = 1 + width * 3
            out = []
            for y in range(height):
                row = raw[y * stride + 1:(y + 1) * stride]
                out.append(' '.join('%06x' % (row[x*3] << 16 | row[x*3+1] << 8 | row[x*3+2]) for x in range(width)))
            print('\\n'.join(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let expected = (0..<height).map { y in (0..<width).map { String(format: "%06x", image.pixel(x: $0, y: y)) }.joined(separator: " ") }
        #expect(output.split(separator: "\n").map(String.init) == expected)
    }
}
