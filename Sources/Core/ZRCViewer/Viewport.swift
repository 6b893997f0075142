public import ZRCProtocol

/// Where the remote screen sits in the terminal's drawing area, and how a point on one maps to
/// the other: aspect-preserving fit (letterbox bars on one axis), zoom, and pan. Pure arithmetic,
/// so the viewer's pointer mapping can be checked exhaustively.
///
/// The visible part of the remote screen always has the screen's aspect ratio: at zoom `z` it is
/// `remote / z` wide and high, positioned by `origin` and clamped inside the screen. It is drawn
/// into `imageRect`, the largest rectangle of that aspect ratio centred in the drawing area.
public struct Viewport: Sendable, Equatable {
    public static let maximumZoom = 16.0

    /// The remote screen, in remote pixels.
    public private(set) var remoteWidth: Int
    public private(set) var remoteHeight: Int
    /// The local drawing area, in terminal pixels.
    public private(set) var areaWidth: Int
    public private(set) var areaHeight: Int
    /// 1 shows the whole screen; up to `maximumZoom`.
    public private(set) var zoom: Double = 1
    /// Top-left corner of the visible region, in remote pixels.
    public private(set) var originX: Double = 0
    public private(set) var originY: Double = 0
    /// The part of the screen the view is confined to (one monitor), in remote pixels; the whole
    /// screen unless `show(region:)` chose one.
    public private(set) var regionX = 0
    public private(set) var regionY = 0
    public private(set) var regionWidth: Int
    public private(set) var regionHeight: Int

    public init(remoteWidth: Int, remoteHeight: Int, areaWidth: Int, areaHeight: Int) {
        self.remoteWidth = max(1, remoteWidth)
        self.remoteHeight = max(1, remoteHeight)
        regionWidth = self.remoteWidth
        regionHeight = self.remoteHeight
        self.areaWidth = max(1, areaWidth)
        self.areaHeight = max(1, areaHeight)
    }

    /// The visible region of the remote screen, in remote pixels.
    public var visibleWidth: Double { Double(regionWidth) / zoom }
    public var visibleHeight: Double { Double(regionHeight) / zoom }

    /// Local pixels per remote pixel.
    public var scale: Double {
        min(Double(areaWidth) / visibleWidth, Double(areaHeight) / visibleHeight)
    }

    /// Where the image goes in the drawing area (local pixels); the rest is letterbox.
    public var imageRect: (x: Double, y: Double, width: Double, height: Double) {
        let width = visibleWidth * scale, height = visibleHeight * scale
        return ((Double(areaWidth) - width) / 2, (Double(areaHeight) - height) / 2, width, height)
    }

    /// The remote point (continuous) under local point (`x`, `y`), without clamping or letterbox.
    public func exactRemote(x: Double, y: Double) -> (x: Double, y: Double) {
        let image = imageRect
        return (originX + (x - image.x) / scale, originY + (y - image.y) / scale)
    }

    /// The local point (continuous) showing remote point (`x`, `y`).
    public func local(remoteX x: Double, remoteY y: Double) -> (x: Double, y: Double) {
        let image = imageRect
        return (image.x + (x - originX) * scale, image.y + (y - originY) * scale)
    }

    /// The remote pixel under local point (`x`, `y`), clamped to the region shown; nil in the letterbox
    /// bars (outside the image), where a pointer event means nothing remote.
    public func remotePixel(x: Double, y: Double) -> (x: Int, y: Int)? {
        let image = imageRect
        guard x >= image.x, x < image.x + image.width, y >= image.y, y < image.y + image.height else { return nil }
        let exact = exactRemote(x: x, y: y)
        return (Self.clamp(exact.x, from: regionX, size: regionWidth), Self.clamp(exact.y, from: regionY, size: regionHeight))
    }

    private static func clamp(_ value: Double, from start: Int, size: Int) -> Int {
        guard value.isFinite else { return start }
        return min(max(Int(value.rounded(.down)), start), start + size - 1)
    }

    /// What to ask the host for: the visible region (rounded outwards to whole pixels, plus one
    /// pixel of margin for the image's edge pixels, which reach a little beyond it) at the size
    /// the image takes in the drawing area (rounded up), so nothing is sent that is not shown.
    public var pictureRequest: PictureRequest {
        let x0 = max(0, Int(originX.rounded(.down)) - 1), y0 = max(0, Int(originY.rounded(.down)) - 1)
        let x1 = min(remoteWidth, Int((originX + visibleWidth).rounded(.up)) + 1)
        let y1 = min(remoteHeight, Int((originY + visibleHeight).rounded(.up)) + 1)
        let image = imageRect
        let limit = Double(UInt16.max)
        return PictureRequest(maxWidth: UInt16(max(1, min(limit, image.width.rounded(.up)))), maxHeight: UInt16(max(1, min(limit, image.height.rounded(.up)))),
                              regionX: UInt16(clamping: x0), regionY: UInt16(clamping: y0),
                              regionWidth: UInt16(clamping: max(1, x1 - x0)), regionHeight: UInt16(clamping: max(1, y1 - y0)))
    }

    /// Zooms by `factor` (clamped to 1…`maximumZoom`) keeping the remote point under local point
    /// (`x`, `y`) where it is, as far as the screen's edges allow.
    public mutating func zoom(by factor: Double, keepingLocal x: Double, _ y: Double) {
        guard factor.isFinite, factor > 0 else { return }
        let anchor = exactRemote(x: x, y: y)
        zoom = min(max(zoom * factor, 1), Self.maximumZoom)
        let image = imageRect
        originX = anchor.x - (x - image.x) / scale
        originY = anchor.y - (y - image.y) / scale
        clampOrigin()
    }

    /// Moves the view by (`dx`, `dy`) local pixels (positive: show what is right/below).
    public mutating func pan(byLocal dx: Double, _ dy: Double) {
        guard dx.isFinite, dy.isFinite else { return }
        originX += dx / scale
        originY += dy / scale
        clampOrigin()
    }

    /// Back to all of the region shown, unzoomed.
    public mutating func reset() {
        zoom = 1
        originX = Double(regionX)
        originY = Double(regionY)
    }

    /// Confines the view to one part of the screen (a monitor; nil: the whole screen), unzoomed.
    /// A region reaching outside the screen is cut to it; one outside it entirely shows it all.
    public mutating func show(region: (x: Int, y: Int, width: Int, height: Int)?) {
        let x0 = max(0, region?.x ?? 0), y0 = max(0, region?.y ?? 0)
        let x1 = min(remoteWidth, region.map { $0.x + $0.width } ?? remoteWidth)
        let y1 = min(remoteHeight, region.map { $0.y + $0.height } ?? remoteHeight)
        if x1 > x0, y1 > y0 {
            (regionX, regionY, regionWidth, regionHeight) = (x0, y0, x1 - x0, y1 - y0)
        } else {
            (regionX, regionY, regionWidth, regionHeight) = (0, 0, remoteWidth, remoteHeight)
        }
        reset()
    }

    /// Whether the view is confined to part of the screen.
    public var showsRegion: Bool { regionWidth != remoteWidth || regionHeight != remoteHeight }

    /// The terminal was resized: same zoom and region, new drawing area.
    public mutating func resizeArea(width: Int, height: Int) {
        areaWidth = max(1, width)
        areaHeight = max(1, height)
    }

    /// The remote screen changed size: the view starts over on the whole screen.
    public mutating func resizeRemote(width: Int, height: Int) {
        remoteWidth = max(1, width)
        remoteHeight = max(1, height)
        show(region: nil)
    }

    private mutating func clampOrigin() {
        originX = min(max(originX, Double(regionX)), Double(regionX + regionWidth) - visibleWidth)
        originY = min(max(originY, Double(regionY)), Double(regionY + regionHeight) - visibleHeight)
    }
}
