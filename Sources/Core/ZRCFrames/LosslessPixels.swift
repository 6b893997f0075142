public import ZRCProtocol
/// The picture inside a lossless rect (wire encoding 4), before the session's compressor: the
/// layout TigerVNC's Tight and ZRLE use in spirit — few-colour areas (text, UI) as a palette and
/// packed indices, everything else as true colour — so text is pixel-exact in a few hundred bytes.
///
/// Layout (all of it then goes through the session's zstd stream as one flushed chunk):
/// - `u8` kind: 0 palette, 1 true colour; anything else is an error.
/// - palette: `u8` colour count − 1 (1…256 colours), the colours as R, G, B bytes, then the rows:
///   one index per pixel, 1 bit for 2 colours, 2 bits for up to 4, 4 for up to 16, else 8; most
///   significant bits first; each row starts on a byte boundary. An index beyond the palette is an
///   error.
/// - true colour: three planes, blue, then green, then red, each `height` rows of `width` bytes;
///   every byte after the first row is sent as its difference (mod 256) from the byte above it.
///   Colour planes of photographs and gradients change slowly, so the differences are small and
///   repeat: zstd packs them to about a third of interleaved pixels.
///
/// A payload must be consumed exactly: a short or long one is an error.
public enum LosslessPixels {
    public static let maximumPaletteSize = 256

    /// The most bytes a payload for `width`×`height` pixels can take (true colour, or a palette of
    /// 256 with 8-bit indices plus its header), for bounding decompression before it happens.
    public static func maximumPayloadSize(width: Int, height: Int) -> Int {
        max(1 + width * height * 3, 2 + maximumPaletteSize * 3 + width * height)
    }

    /// A palette payload for `rect`, or nil when it holds more than `maximumPaletteSize` colours or
    /// too many for its size (`paletteWorthwhile`).
    public static func palettePayload(_ image: PixelBuffer, rect: PixelRect) -> [UInt8]? {
        guard let (palette, indices) = ColourIndexer.index(image, rect: rect, limit: maximumPaletteSize),
              paletteWorthwhile(colours: palette.count, pixels: rect.area)
        else { return nil }
        let bits = bitsPerIndex(colours: palette.count)
        let rowBytes = (rect.width * bits + 7) / 8
        var payload = [UInt8]()
        payload.reserveCapacity(2 + palette.count * 3 + rowBytes * rect.height)
        payload.append(0)
        payload.append(UInt8(palette.count - 1))
        for colour in palette {
            payload.append(UInt8(colour >> 16 & 0xFF))
            payload.append(UInt8(colour >> 8 & 0xFF))
            payload.append(UInt8(colour & 0xFF))
        }
        let perByte = 8 / bits
        for row in 0..<rect.height {
            let start = row * rect.width
            if bits == 8 {
                payload.append(contentsOf: indices[start..<start + rect.width])
                continue
            }
            var column = 0
            while column < rect.width {
                var byte: UInt8 = 0
                for slot in 0..<perByte {
                    let index = column + slot < rect.width ? indices[start + column + slot] : 0
                    byte |= index << UInt8(8 - bits * (slot + 1))
                }
                payload.append(byte)
                column += perByte
            }
        }
        return payload
    }

    /// A true-colour payload for `rect`.
    public static func trueColourPayload(_ image: PixelBuffer, rect: PixelRect) -> [UInt8] {
        let area = rect.area
        var payload = [UInt8](repeating: 1, count: 1 + area * 3)
        payload.withUnsafeMutableBytes { out in
            image.bytes.withUnsafeBytes { pixels in
                for channel in 0..<3 {
                    let plane = 1 + channel * area
                    for row in 0..<rect.height {
                        let source = (rect.y + row) * image.bytesPerRow + rect.x * 4 + channel
                        let above = source - image.bytesPerRow
                        let target = plane + row * rect.width
                        for column in 0..<rect.width {
                            let value = pixels[source + column * 4]
                            out[target + column] = row == 0 ? value : value &- pixels[above + column * 4]
                        }
                    }
                }
            }
        }
        return payload
    }

    /// The palette payload when the area has few colours for its size, else true colour.
    public static func payload(_ image: PixelBuffer, rect: PixelRect) -> [UInt8] {
        palettePayload(image, rect: rect) ?? trueColourPayload(image, rect: rect)
    }

    /// Whether `colours` colours on `pixels` pixels are worth a palette: up to 16 always (indices
    /// of 4 bits or less), beyond that when each colour covers 8 pixels on average — a small area
    /// of a photograph has nearly one colour per pixel, and its palette would cost more than the
    /// pixels (the true-colour planes compress better).
    static func paletteWorthwhile(colours: Int, pixels: Int) -> Bool {
        colours <= 16 || colours * 8 <= pixels
    }

    /// Draws a payload into `rect` of `image` (which must lie inside it).
    public static func decode(_ payload: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws(FrameError) {
        precondition(image.bounds.intersection(rect) == rect, "decoding outside the image")
        guard let kind = payload.first else { throw FrameError("a lossless rect is empty") }
        switch kind {
        case 0: try decodePalette(payload, into: &image, rect: rect)
        case 1: try decodeTrueColour(payload, into: &image, rect: rect)
        default: throw FrameError("a lossless rect has kind \(kind); known kinds are 0 palette, 1 true colour")
        }
    }

    static func bitsPerIndex(colours: Int) -> Int {
        switch colours {
        case ...2: 1
        case ...4: 2
        case ...16: 4
        default: 8
        }
    }

    private static func decodePalette(_ payload: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws(FrameError) {
        guard payload.count >= 2 else { throw FrameError("a palette rect ends before its colour count") }
        let count = Int(payload[1]) + 1
        let bits = bitsPerIndex(colours: count)
        let rowBytes = (rect.width * bits + 7) / 8
        let expected = 2 + count * 3 + rowBytes * rect.height
        guard payload.count == expected else {
            throw FrameError("a \(rect.width)x\(rect.height) palette rect of \(count) colours needs \(expected) bytes, it has \(payload.count)")
        }
        var palette = [UInt32](repeating: 0, count: 256)
        for index in 0..<count {
            let offset = 2 + index * 3
            palette[index] = UInt32(payload[offset]) << 16 | UInt32(payload[offset + 1]) << 8 | UInt32(payload[offset + 2])
        }
        let mask = UInt8((1 << bits) - 1)
        let stride = image.bytesPerRow
        var badIndex: UInt8?
        payload.withUnsafeBytes { input in
            image.bytes.withUnsafeMutableBytes { raw in
                var offset = 2 + count * 3
                for row in 0..<rect.height {
                    let pixels = (raw.baseAddress! + (rect.y + row) * stride + rect.x * 4).bindMemory(to: UInt32.self, capacity: rect.width)
                    for column in 0..<rect.width {
                        let bitOffset = column * bits
                        let byte = input[offset + bitOffset / 8]
                        let index = bits == 8 ? byte : byte >> UInt8(8 - bits - bitOffset % 8) & mask
                        if Int(index) >= count { badIndex = index }
                        pixels[column] = palette[Int(index)].littleEndian
                    }
                    offset += rowBytes
                }
            }
        }
        if let badIndex { throw FrameError("a palette rect uses index \(badIndex) of a \(count)-colour palette") }
    }

    private static func decodeTrueColour(_ payload: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws(FrameError) {
        let area = rect.area
        let expected = 1 + area * 3
        guard payload.count == expected else {
            throw FrameError("a \(rect.width)x\(rect.height) true-colour rect needs \(expected) bytes, it has \(payload.count)")
        }
        let stride = image.bytesPerRow
        payload.withUnsafeBytes { input in
            image.bytes.withUnsafeMutableBytes { raw in
                for channel in 0..<3 {
                    let plane = 1 + channel * area
                    for row in 0..<rect.height {
                        let target = (rect.y + row) * stride + rect.x * 4 + channel
                        let source = plane + row * rect.width
                        for column in 0..<rect.width {
                            let delta = input[source + column]
                            raw[target + column * 4] = row == 0 ? delta : delta &+ raw[target - stride + column * 4]
                        }
                    }
                }
                for row in rect.y..<rect.maxY {
                    for column in rect.x..<rect.maxX { raw[row * stride + column * 4 + 3] = 0 }
                }
            }
        }
    }
}
