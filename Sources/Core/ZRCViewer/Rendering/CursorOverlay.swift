public import ZRCFrames
public import ZRCProtocol

/// Draws the remote pointer into the viewer's picture. The host sends the pointer's shape once and
/// its position separately (the captured screen has no pointer in it), so the viewer draws it
/// itself, scaled like the screen, with its hot spot on the remote position.
public enum CursorOverlay {
    /// Where the pointer with `shape` at remote (`x`, `y`) lands in the picture, or nil when it is
    /// off the visible region. The shape is scaled with the screen, and never below one pixel.
    public static func localRect(shape: CursorShape, x: Int32, y: Int32, viewport: Viewport, imageBounds: PixelRect) -> PixelRect? {
        guard shape.width > 0, shape.height > 0 else { return nil }
        let scale = viewport.scale
        let topLeft = viewport.local(remoteX: Double(x) - Double(shape.hotX), remoteY: Double(y) - Double(shape.hotY))
        let width = max(1, Int((Double(shape.width) * scale).rounded())), height = max(1, Int((Double(shape.height) * scale).rounded()))
        let rect = PixelRect(x: Int(topLeft.x.rounded(.down)), y: Int(topLeft.y.rounded(.down)), width: width, height: height)
        let visible = rect.intersection(imageBounds)
        return visible.isEmpty ? nil : rect
    }

    /// Blends `shape` (straight RGBA) into `image` over `rect` (from `localRect`), clipped to `clip`.
    public static func draw(_ shape: CursorShape, into image: inout PixelBuffer, at rect: PixelRect, clip: PixelRect) {
        let visible = rect.intersection(clip).intersection(image.bounds)
        guard !visible.isEmpty, shape.rgba.count >= Int(shape.width) * Int(shape.height) * 4 else { return }
        let shapeWidth = Int(shape.width), shapeHeight = Int(shape.height)
        let stride = image.bytesPerRow
        image.bytes.withUnsafeMutableBytes { pixels in
            for y in visible.y..<visible.maxY {
                let sy = min(shapeHeight - 1, (y - rect.y) * shapeHeight / rect.height)
                for x in visible.x..<visible.maxX {
                    let sx = min(shapeWidth - 1, (x - rect.x) * shapeWidth / rect.width)
                    let s = (sy * shapeWidth + sx) * 4
                    let alpha = UInt32(shape.rgba[s + 3])
                    guard alpha > 0 else { continue }
                    let d = y * stride + x * 4
                    func blend(_ source: UInt8, _ target: UInt8) -> UInt8 {
                        UInt8((UInt32(source) * alpha + UInt32(target) * (255 - alpha) + 127) / 255)
                    }
                    // Destination is BGRX, the shape RGBA.
                    pixels[d] = blend(shape.rgba[s + 2], pixels[d])
                    pixels[d + 1] = blend(shape.rgba[s + 1], pixels[d + 1])
                    pixels[d + 2] = blend(shape.rgba[s], pixels[d + 2])
                }
            }
        }
    }
}
