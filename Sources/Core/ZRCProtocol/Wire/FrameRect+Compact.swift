/// A rect inside a `compactFrame`: varint x, y, width, height (each ≤ 65535), u8 encoding, then the
/// encoding's data with varint lengths — a solid colour as three bytes R, G, B (the padding byte
/// is not sent), a copy's source as two varints.
extension FrameRect {
    func writeCompact(to writer: inout ByteWriter) {
        writer.write(varint: UInt64(x))
        writer.write(varint: UInt64(y))
        writer.write(varint: UInt64(width))
        writer.write(varint: UInt64(height))
        writer.write(content.encodingByte)
        switch content {
        case .jpeg(let data), .lossless(let data), .losslessFrame(let data), .losslessRestart(let data): writer.write(varintBlob: data)
        case .raw(let pixels): writer.write(varintBlob: pixels)
        case .solid(let pixel):
            writer.write(UInt8(truncatingIfNeeded: pixel >> 16))
            writer.write(UInt8(truncatingIfNeeded: pixel >> 8))
            writer.write(UInt8(truncatingIfNeeded: pixel))
        case .copy(let sourceX, let sourceY):
            writer.write(varint: UInt64(sourceX))
            writer.write(varint: UInt64(sourceY))
        }
    }

    init(compactFrom reader: inout ByteReader, field: String) throws(WireError) {
        let side = UInt64(UInt16.max)
        x = UInt16(try reader.readVarint("\(field).x", maximum: side))
        y = UInt16(try reader.readVarint("\(field).y", maximum: side))
        width = UInt16(try reader.readVarint("\(field).width", maximum: side))
        height = UInt16(try reader.readVarint("\(field).height", maximum: side))
        let encoding = try reader.readUInt8("\(field).encoding")
        switch encoding {
        case 1:
            content = .jpeg(try reader.readVarintBlob("\(field).jpeg", maxLength: Int(UInt32.max)))
        case 2:
            let red = UInt32(try reader.readUInt8("\(field).red"))
            let green = UInt32(try reader.readUInt8("\(field).green"))
            let blue = UInt32(try reader.readUInt8("\(field).blue"))
            content = .solid(pixel: red << 16 | green << 8 | blue)
        case 3:
            // Checked against width × height × 4 before copying, so a lying length allocates nothing.
            let expected = Int(width) * Int(height) * 4
            let length = try reader.readVarint("\(field).bgrx length")
            guard length == UInt64(expected) else { throw reader.invalid("\(field).bgrx", "has \(length) bytes, but its dimensions require \(expected)") }
            content = .raw(bgrx: try reader.readBytes(count: expected, "\(field).bgrx"))
        case 4:
            content = .lossless(try reader.readVarintBlob("\(field).lossless", maxLength: Int(UInt32.max)))
        case 5:
            content = .copy(sourceX: UInt16(try reader.readVarint("\(field).sourceX", maximum: side)),
                            sourceY: UInt16(try reader.readVarint("\(field).sourceY", maximum: side)))
        case 6:
            content = .losslessFrame(try reader.readVarintBlob("\(field).losslessFrame", maxLength: Int(UInt32.max)))
        case 7:
            content = .losslessRestart(try reader.readVarintBlob("\(field).losslessRestart", maxLength: Int(UInt32.max)))
        default:
            throw reader.invalid("\(field).encoding", "is \(encoding); \(Self.knownEncodings)")
        }
    }
}
