public import ZRCProtocol

/// The host's scaled copy of the screen for one controller: `mapping.region` of the screen,
/// shrunk to `mapping`'s picture size with a box filter (every screen pixel counted once, so text
/// stays legible), and kept up to date area by area as the screen changes.
public struct PictureScaler: Sendable {
    public let mapping: PictureMapping
    public private(set) var picture: PixelBuffer
    /// Per picture column (row): the first screen column (row) of its box and how many.
    private let columns: [Span]
    private let rows: [Span]
    /// 2^32 / n, rounded, for the pixel counts boxes have (a multiply instead of a divide).
    private let reciprocals: [UInt64]
    private var drawn = false

    struct Span: Sendable {
        var start: Int
        var count: Int
    }

    public init(mapping: PictureMapping) {
        self.mapping = mapping
        picture = PixelBuffer(width: Int(mapping.pictureWidth), height: Int(mapping.pictureHeight))
        columns = Self.spans(picture: Int(mapping.pictureWidth), region: Int(mapping.regionWidth), offset: Int(mapping.regionX))
        rows = Self.spans(picture: Int(mapping.pictureHeight), region: Int(mapping.regionHeight), offset: Int(mapping.regionY))
        // Boxes beyond a few thousand pixels (a tiny picture of a large screen) divide instead.
        let widest: Int = columns.map(\.count).max() ?? 1
        let tallest: Int = rows.map(\.count).max() ?? 1
        reciprocals = (0...min(4096, widest * tallest)).map { (count: Int) -> UInt64 in
            count == 0 ? 0 : ((1 << 32) + UInt64(count / 2)) / UInt64(count)
        }
    }

    static func spans(picture: Int, region: Int, offset: Int) -> [Span] {
        (0..<picture).map { index in
            let start = index * region / picture, end = max(start + 1, (index + 1) * region / picture)
            return Span(start: offset + start, count: end - start)
        }
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
        let columns = columns, rows = rows, reciprocals = reciprocals
        let sourceStride = screen.bytesPerRow, targetStride = picture.bytesPerRow
        screen.bytes.withUnsafeBytes { source in
            picture.bytes.withUnsafeMutableBytes { target in
                for y in area.y..<area.maxY {
                    let row = rows[y]
                    for x in area.x..<area.maxX {
                        let column = columns[x]
                        let out = y * targetStride + x * 4
                        if row.count == 1 && column.count == 1 {
                            let pixel = source.loadUnaligned(fromByteOffset: row.start * sourceStride + column.start * 4, as: UInt32.self)
                            target.storeBytes(of: pixel & UInt32(0x00FF_FFFF).littleEndian, toByteOffset: out, as: UInt32.self)
                            continue
                        }
                        var blue: UInt64 = 0, green: UInt64 = 0, red: UInt64 = 0
                        for sy in row.start..<(row.start + row.count) {
                            var offset = sy * sourceStride + column.start * 4
                            for _ in 0..<column.count {
                                let pixel = UInt64(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                                blue &+= pixel & 0xFF
                                green &+= pixel >> 8 & 0xFF
                                red &+= pixel >> 16 & 0xFF
                                offset += 4
                            }
                        }
                        let count = row.count * column.count
                        let mean: UInt32
                        if count < reciprocals.count {
                            // sum ≤ 255 × count, so sum × 2^32 / count stays below 2^40: no overflow.
                            let scale = reciprocals[count]
                            mean = UInt32((red &* scale &+ 1 << 31) >> 32) << 16 | UInt32((green &* scale &+ 1 << 31) >> 32) << 8
                                | UInt32((blue &* scale &+ 1 << 31) >> 32)
                        } else {
                            let half = UInt64(count / 2), n = UInt64(count)
                            mean = UInt32((red + half) / n) << 16 | UInt32((green + half) / n) << 8 | UInt32((blue + half) / n)
                        }
                        target.storeBytes(of: mean.littleEndian, toByteOffset: out, as: UInt32.self)
                    }
                }
            }
        }
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
