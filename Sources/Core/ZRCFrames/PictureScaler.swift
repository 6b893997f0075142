public import ZRCProtocol

/// The host's scaled copy of the screen for one controller: `mapping.region` of the screen,
/// shrunk to `mapping`'s picture size with a box filter (every screen pixel counted once, so text
/// stays legible), and kept up to date area by area as the screen changes.
public struct PictureScaler: Sendable {
    public let mapping: PictureMapping
    public private(set) var picture: PixelBuffer
    /// The boxes: per picture column (row), the screen columns (rows) it averages.
    private let resampler: BoxResampler
    private var drawn = false

    public init(mapping: PictureMapping) {
        self.mapping = mapping
        picture = PixelBuffer(width: Int(mapping.pictureWidth), height: Int(mapping.pictureHeight))
        resampler = BoxResampler(
            columns: BoxResampler.shrinking(target: Int(mapping.pictureWidth), source: Int(mapping.regionWidth), offset: Int(mapping.regionX)),
            rows: BoxResampler.shrinking(target: Int(mapping.pictureHeight), source: Int(mapping.regionHeight), offset: Int(mapping.regionY)))
    }

    /// The picture rectangle showing screen rectangle `screen` (rounded outwards), nil when it is
    /// outside the region.
    public func pictureRect(covering screen: PixelRect) -> PixelRect? {
        let region = PixelRect(x: Int(mapping.regionX), y: Int(mapping.regionY), width: Int(mapping.regionWidth), height: Int(mapping.regionHeight))
        let area = screen.intersection(region)
        guard !area.isEmpty else { return nil }
        let (pw, ph) = (Int(mapping.pictureWidth), Int(mapping.pictureHeight))
        let (rw, rh) = (Int(mapping.regionWidth), Int(mapping.regionHeight))
        let x0 = (area.x - region.x) * pw / rw, y0 = (area.y - region.y) * ph / rh
        let x1 = min(pw, ((area.maxX - region.x) * pw + rw - 1) / rw), y1 = min(ph, ((area.maxY - region.y) * ph + rh - 1) / rh)
        return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)).intersection(picture.bounds)
    }

    /// Brings the picture up to date with `screen` (which must be the mapping's screen size) where
    /// `hints` say the screen may have changed (nil: anywhere). Returns the picture areas redrawn,
    /// as hints for the frame stream (nil: the whole picture).
    public mutating func update(from screen: PixelBuffer, hints: [PixelRect]?) -> [PixelRect]? {
        precondition(screen.width == Int(mapping.screenWidth) && screen.height == Int(mapping.screenHeight), "a screen of another size")
        guard drawn, let hints else {
            draw(picture.bounds, from: screen)
            drawn = true
            return nil
        }
        let areas = hints.compactMap { pictureRect(covering: $0) }
        for area in areas { draw(area, from: screen) }
        return areas
    }

    private mutating func draw(_ area: PixelRect, from screen: PixelBuffer) {
        resampler.draw(area, into: &picture, origin: (0, 0), from: screen)
    }
}

extension PictureMapping {
    /// What a host sends for `request` on a `width` × `height` screen: the requested region
    /// clipped to the screen (the whole screen when it asks for that or nothing of it remains),
    /// shrunk to fit the requested size with its aspect ratio kept, never enlarged.
    public static func fitting(_ request: PictureRequest, screenWidth width: Int, screenHeight height: Int) -> PictureMapping {
        let screen = PixelRect(x: 0, y: 0, width: width, height: height)
        var region = screen
        if !request.wantsWholeScreen {
            let clipped = PixelRect(x: Int(request.regionX), y: Int(request.regionY), width: Int(request.regionWidth),
                                    height: Int(request.regionHeight)).intersection(screen)
            if !clipped.isEmpty { region = clipped }
        }
        var pictureWidth = region.width, pictureHeight = region.height
        if !request.wantsFullResolution {
            let scale = min(1, Double(request.maxWidth) / Double(region.width), Double(request.maxHeight) / Double(region.height))
            pictureWidth = min(region.width, max(1, Int((Double(region.width) * scale).rounded())))
            pictureHeight = min(region.height, max(1, Int((Double(region.height) * scale).rounded())))
        }
        return PictureMapping(screenWidth: UInt32(width), screenHeight: UInt32(height), regionX: UInt16(region.x), regionY: UInt16(region.y),
                              regionWidth: UInt16(region.width), regionHeight: UInt16(region.height), pictureWidth: UInt16(pictureWidth),
                              pictureHeight: UInt16(pictureHeight))
    }
}
