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
/// - larger than 256 on a side: cropped to a 256-pixel window that keeps the hotspot and as
///   much of the visible part as fits.
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
