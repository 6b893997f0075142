public import ZRCFrames
public import ZRCProtocol

/// Draws the visible part of the remote screen into the viewer's drawing area, in local pixels,
/// as the viewport places it: averaged over the covered remote pixels when shrinking (so text stays
/// legible), the nearest remote pixel when enlarging (so zoomed pixels stay crisp), and black
/// letterbox bars around it. After the first frame only the areas that changed are redrawn.
///
/// The remote pixel chosen for a local pixel is the one `Viewport.remotePixel` maps its centre
/// to, so what the user sees under the pointer is what a click there hits.
///
/// The viewport is in screen pixels; the frame may be a scaled picture of part of the screen
/// (`mapping`), whose pixels are found through the mapping. Screen areas outside the mapped region
/// show the region's nearest edge until a picture of them arrives.
public struct FrameScaler: Sendable {
    public private(set) var output: PixelBuffer
    public let viewport: Viewport
    /// nil: the frame is the whole screen at full resolution.
    public let mapping: PictureMapping?
    /// The image's pixel bounds in `output`; everything else is letterbox.
    public let imageBounds: PixelRect
    /// The boxes (host and viewer share `BoxResampler`): per local column (row) of the image, the
    /// picture columns (rows) it shows.
    private let resampler: BoxResampler

    typealias Span = BoxResampler.Span

    public init(viewport: Viewport, mapping: PictureMapping? = nil) {
        self.viewport = viewport
        self.mapping = mapping
        output = PixelBuffer(width: viewport.areaWidth, height: viewport.areaHeight)
        let image = viewport.imageRect
        let x0 = Self.clampedRound(image.x, limit: viewport.areaWidth), x1 = Self.clampedRound(image.x + image.width, limit: viewport.areaWidth)
        let y0 = Self.clampedRound(image.y, limit: viewport.areaHeight), y1 = Self.clampedRound(image.y + image.height, limit: viewport.areaHeight)
        imageBounds = PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
        let horizontal = mapping.map { (start: Int($0.regionX), length: Int($0.regionWidth), picture: Int($0.pictureWidth)) }
        let vertical = mapping.map { (start: Int($0.regionY), length: Int($0.regionHeight), picture: Int($0.pictureHeight)) }
        let columns = (x0..<max(x0, x1)).map {
            Self.picture(Self.span(local: Double($0), origin: viewport.originX, imageStart: image.x, scale: viewport.scale,
                                   size: viewport.remoteWidth), horizontal)
        }
        let rows = (y0..<max(y0, y1)).map {
            Self.picture(Self.span(local: Double($0), origin: viewport.originY, imageStart: image.y, scale: viewport.scale,
                                   size: viewport.remoteHeight), vertical)
        }
        resampler = BoxResampler(columns: columns, rows: rows)
    }

    private static func clampedRound(_ value: Double, limit: Int) -> Int {
        guard value.isFinite else { return 0 }
        return min(max(Int(value.rounded()), 0), limit)
    }

    /// The remote pixels behind local pixel `local` (a column or a row).
    private static func span(local: Double, origin: Double, imageStart: Double, scale: Double, size: Int) -> Span {
        let start = origin + (local - imageStart) / scale
        let end = origin + (local + 1 - imageStart) / scale
        var first: Int, count: Int
        if scale >= 1 {
            first = Int((origin + (local + 0.5 - imageStart) / scale).rounded(.down))
            count = 1
        } else {
            first = Int(start.rounded(.down))
            count = max(1, Int(end.rounded(.up)) - first)
        }
        first = min(max(first, 0), size - 1)
        count = min(count, size - first)
        return Span(start: first, count: count)
    }

    /// A span of screen pixels as the span of picture pixels showing them (clamped to the picture).
    private static func picture(_ span: Span, _ axis: (start: Int, length: Int, picture: Int)?) -> Span {
        guard let axis else { return span }
        let first = (Int(span.start) - axis.start) * axis.picture / axis.length
        let end = ((Int(span.start + span.count) - axis.start) * axis.picture + axis.length - 1) / axis.length
        let start = min(max(first, 0), axis.picture - 1)
        return Span(start: start, count: min(max(1, end - first), axis.picture - start))
    }

    /// The picture's size: the mapping's, or the whole screen's.
    public var pictureSize: (width: Int, height: Int) {
        mapping.map { (Int($0.pictureWidth), Int($0.pictureHeight)) } ?? (viewport.remoteWidth, viewport.remoteHeight)
    }

    /// The screen rectangle a picture rectangle shows (rounded outwards).
    public func screenRect(ofPicture rect: PixelRect) -> PixelRect {
        guard let mapping else { return rect }
        let (rx, ry, rw, rh) = (Int(mapping.regionX), Int(mapping.regionY), Int(mapping.regionWidth), Int(mapping.regionHeight))
        let (pw, ph) = (Int(mapping.pictureWidth), Int(mapping.pictureHeight))
        let x0 = rx + rect.x * rw / pw, y0 = ry + rect.y * rh / ph
        let x1 = rx + (rect.maxX * rw + pw - 1) / pw, y1 = ry + (rect.maxY * rh + ph - 1) / ph
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// Draws the whole area from `frame`, which must be the picture the viewport and mapping describe.
    public mutating func drawAll(from frame: PixelBuffer) {
        output.fill(output.bounds, rgb: 0)
        redraw([imageBounds], from: frame)
    }

    /// Redraws the local rectangles `rects` (clipped to the image) from `frame`.
    public mutating func redraw(_ rects: [PixelRect], from frame: PixelBuffer) {
        precondition(frame.width == pictureSize.width && frame.height == pictureSize.height,
                     "the frame must be the picture the viewport and mapping were made for")
        for rect in rects {
            let area = rect.intersection(imageBounds)
            guard !area.isEmpty else { continue }
            draw(area, from: frame)
        }
    }

    /// Lets the caller draw over the picture in place (the pointer); whatever it draws stays until
    /// that area is redrawn.
    public mutating func drawOnTop(_ body: (inout PixelBuffer) -> Void) { body(&output) }

    /// The local rectangle showing remote rectangle `remote`, widened by a pixel for rounding;
    /// nil when none of it is visible.
    public func localRect(covering remote: PixelRect) -> PixelRect? {
        let topLeft = viewport.local(remoteX: Double(remote.x), remoteY: Double(remote.y))
        let bottomRight = viewport.local(remoteX: Double(remote.maxX), remoteY: Double(remote.maxY))
        let x0 = Int(topLeft.x.rounded(.down)) - 1, y0 = Int(topLeft.y.rounded(.down)) - 1
        let x1 = Int(bottomRight.x.rounded(.up)) + 1, y1 = Int(bottomRight.y.rounded(.up)) + 1
        let rect = PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0)).intersection(imageBounds)
        return rect.isEmpty ? nil : rect
    }

    private mutating func draw(_ area: PixelRect, from frame: PixelBuffer) {
        resampler.draw(area, into: &output, origin: (imageBounds.x, imageBounds.y), from: frame)
    }
}
