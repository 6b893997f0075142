import ZRCProtocol

/// Writes a picture as a PNG (8-bit RGB), losslessly, in pure Swift.
///
/// The zlib stream uses stored (uncompressed) deflate blocks: the file is as large as the raw
/// pixels, but it is exact, needs no compression library, and any PNG reader opens it.
public enum PNGWriter {
    public static func encode(_ image: PixelBuffer) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(image.height * (1 + image.width * 3))
        for y in 0..<image.height {
            raw.append(0)  // filter type: none
            let row = y * image.bytesPerRow
            for x in 0..<image.width {
                let offset = row + x * 4
                raw.append(image.bytes[offset + 2])
                raw.append(image.bytes[offset + 1])
                raw.append(image.bytes[offset])
            }
        }
        var header: [UInt8] = []
        append32(UInt32(image.width), to: &header)
        append32(UInt32(image.height), to: &header)
        header += [8, 2, 0, 0, 0]  // 8 bits per channel, RGB, deflate, no filter method, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", header, into: &file)
        chunk("IDAT", zlibStored(raw), into: &file)
        chunk("IEND", [], into: &file)
        return file
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out.append(last)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        append32(adler32(data), to: &out)
        return out
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for chunk in stride(from: 0, to: data.count, by: 5_552) {
            for byte in data[chunk..<min(chunk + 5_552, data.count)] {
                a += UInt32(byte)
                b += a
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }

    private static func chunk(_ type: String, _ body: [UInt8], into file: inout [UInt8]) {
        append32(UInt32(body.count), to: &file)
        let typed = Array(type.utf8) + body
        file += typed
        append32(CRC32.checksum(typed), to: &file)
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
