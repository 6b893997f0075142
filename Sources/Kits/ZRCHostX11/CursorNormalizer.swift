import ZRCProtocol
import ZRCX11

/// Turns whatever cursor image the X server reports into something the wire can carry.
///
/// The X server is external input: applications define cursors of any size (a 0×0 or blank
/// cursor to hide the pointer, as xterm does while you type; themes with 300-pixel cursors;
/// animated cursors) with hotspots anywhere. The wire allows 1…256 pixels per side with the
/// hotspot inside (`CursorShape`), so every image passes through here before it becomes a message:
/// - no pixels, or no pixel with any opacity: hidden (`nil`) — the controller draws nothing;
/// - a hotspot outside the image: moved to the nearest pixel inside;
/// - larger than 256 on a side: the part that matters (every visible pixel, and the hotspot) is
///   kept whole — cut out as it is when it fits in 256 × 256 (themes pad large cursors with
///   transparent margins), scaled down by a whole factor with a box filter when it does not, so the
///   user still sees the entire pointer, smaller.
enum CursorNormalizer {
    static func shape(from image: CursorImage) -> CursorShape? {
        shape(width: image.width, height: image.height, hotX: image.hotspotX, hotY: image.hotspotY,
              serial: image.serial, rgba: image.rgba)
    }

    static func shape(width: Int, height: Int, hotX: Int, hotY: Int, serial: UInt32, rgba: [UInt8]) -> CursorShape? {
        guard width > 0, height > 0, rgba.count == width * height * 4,
              let visible = visibleBounds(width: width, height: height, rgba: rgba) else { return nil }
        let hot = (x: min(max(hotX, 0), width - 1), y: min(max(hotY, 0), height - 1))
        let side = WireLimits.maxCursorSide
        let needed = (x: min(visible.x.lowerBound, hot.x)..<max(visible.x.upperBound, hot.x + 1),
                      y: min(visible.y.lowerBound, hot.y)..<max(visible.y.upperBound, hot.y + 1))
        if needed.x.count > side || needed.y.count > side {
            return scaled(width: width, rgba: rgba, region: needed, hot: hot, serial: serial)
        }
        let x0 = windowStart(length: width, side: side, hot: hot.x, visible: visible.x)
        let y0 = windowStart(length: height, side: side, hot: hot.y, visible: visible.y)
        let (w, h) = (min(width, side), min(height, side))
        var pixels = rgba
        if w != width || h != height {
            pixels = []
            pixels.reserveCapacity(w * h * 4)
            for row in y0..<(y0 + h) {
                let start = (row * width + x0) * 4
                pixels.append(contentsOf: rgba[start..<(start + w * 4)])
            }
        }
        return CursorShape(shapeID: serial, width: UInt16(w), height: UInt16(h),
                           hotX: UInt16(hot.x - x0), hotY: UInt16(hot.y - y0), rgba: pixels)
    }

    /// `region` of the image shrunk by the smallest whole factor that brings both sides within the
    /// wire's limit. Each output pixel averages its block: alpha over the block, colour weighted by
    /// alpha (the pixels are straight alpha, so transparent pixels must not darken the edges).
    private static func scaled(width: Int, rgba: [UInt8], region: (x: Range<Int>, y: Range<Int>), hot: (x: Int, y: Int),
                               serial: UInt32) -> CursorShape {
        let side = WireLimits.maxCursorSide
        let factor = (max(region.x.count, region.y.count) + side - 1) / side
        let (w, h) = ((region.x.count + factor - 1) / factor, (region.y.count + factor - 1) / factor)
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        for outY in 0..<h {
            let rows = (region.y.lowerBound + outY * factor)..<min(region.y.lowerBound + (outY + 1) * factor, region.y.upperBound)
            for outX in 0..<w {
                let columns = (region.x.lowerBound + outX * factor)..<min(region.x.lowerBound + (outX + 1) * factor, region.x.upperBound)
                var (red, green, blue, alpha) = (0, 0, 0, 0)
                for y in rows {
                    for x in columns {
                        let index = (y * width + x) * 4
                        let a = Int(rgba[index + 3])
                        red += Int(rgba[index]) * a
                        green += Int(rgba[index + 1]) * a
                        blue += Int(rgba[index + 2]) * a
                        alpha += a
                    }
                }
                let out = (outY * w + outX) * 4
                if alpha > 0 {
                    pixels[out] = UInt8(red / alpha)
                    pixels[out + 1] = UInt8(green / alpha)
                    pixels[out + 2] = UInt8(blue / alpha)
                    // Rounded, and never down to nothing: a faint hairline pointer stays visible.
                    let count = rows.count * columns.count
                    pixels[out + 3] = UInt8(max(1, (alpha + count / 2) / count))
                }
            }
        }
        return CursorShape(shapeID: serial, width: UInt16(w), height: UInt16(h),
                           hotX: UInt16((hot.x - region.x.lowerBound) / factor), hotY: UInt16((hot.y - region.y.lowerBound) / factor),
                           rgba: pixels)
    }

    /// The first row or column of a `side`-long window over `length` pixels that contains `hot`
    /// and starts no later than the visible part does (so the top-left of an oversized arrow,
    /// where arrows point, survives the crop).
    private static func windowStart(length: Int, side: Int, hot: Int, visible: Range<Int>) -> Int {
        guard length > side else { return 0 }
        let wanted = min(visible.lowerBound, hot)
        // Keep the hotspot inside: start ≥ hot − side + 1; stay within the image.
        return min(max(wanted, hot - side + 1, 0), length - side)
    }

    /// Columns and rows holding a pixel with any opacity; nil when the image is fully transparent.
    private static func visibleBounds(width: Int, height: Int, rgba: [UInt8]) -> (x: Range<Int>, y: Range<Int>)? {
        var (minX, minY, maxX, maxY) = (width, height, -1, -1)
        for y in 0..<height {
            for x in 0..<width where rgba[(y * width + x) * 4 + 3] != 0 {
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return nil }
        return (minX..<(maxX + 1), minY..<(maxY + 1))
    }
}
