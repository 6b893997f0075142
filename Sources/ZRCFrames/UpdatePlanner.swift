public import ZRCProtocol

/// Turns a captured screen into the rectangles of the next frame update: only tiles that differ
/// from what the controller already has, solid tiles as a colour, the rest as JPEG.
public struct UpdatePlanner: Sendable {
    public let detector: TileChangeDetector

    public init(tileSize: Int = TileChangeDetector.defaultTileSize) {
        detector = TileChangeDetector(tileSize: tileSize)
    }

    /// The rectangles that bring `previous` (the controller's picture) up to `current`.
    /// `previous` of another size means "the controller has nothing": the whole screen is sent.
    public func rects(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]?, quality: Int, fullChroma: Bool,
                      encoder: inout some RegionEncoder) throws -> [FrameRect] {
        try rects(changed: changedTiles(previous: previous, current: current, hints: hints), current: current, quality: quality,
                  fullChroma: fullChroma, encoder: &encoder)
    }

    /// The tiles of `current` that differ from `previous` (all of them when the sizes differ).
    public func changedTiles(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]?) -> TileMask {
        guard previous.width == current.width, previous.height == current.height else {
            return TileMask.all(TileGrid(width: current.width, height: current.height, tileSize: detector.tileSize))
        }
        return detector.changedTiles(previous: previous, current: current, hints: hints)
    }

    /// The rectangles for tiles already known to have changed (`changed` must be on `current`'s grid).
    /// Only `encodings` are used: solid tiles go as JPEG (or raw) to a controller without solid
    /// rects, and textured ones raw to a controller without JPEG.
    public func rects(changed: TileMask, current: PixelBuffer, quality: Int, fullChroma: Bool,
                      encodings: Capabilities = [.jpegRects, .solidRects, .rawRects],
                      encoder: inout some RegionEncoder) throws -> [FrameRect] {
        let grid = changed.grid
        var solid: [FrameRect] = []
        var textured = TileMask(grid: grid)
        for tile in changed.tiles {
            let rect = grid.rect(of: tile)
            if encodings.contains(.solidRects), let colour = TileComparison.solidColour(of: current, in: rect) {
                solid.append(Self.frameRect(rect, .solid(pixel: colour)))
            } else {
                textured.insert(tile)
            }
        }
        var result = solid
        for rect in textured.mergedRects() {
            if encodings.contains(.jpegRects) {
                let jpeg = try encoder.encodeJPEG(current, rect: rect, quality: quality, fullChroma: fullChroma)
                result.append(Self.frameRect(rect, .jpeg(jpeg)))
            } else {
                result.append(Self.frameRect(rect, .raw(bgrx: current.crop(rect))))
            }
        }
        return result
    }

    static func frameRect(_ rect: PixelRect, _ content: FrameRect.Content) -> FrameRect {
        FrameRect(x: UInt16(rect.x), y: UInt16(rect.y), width: UInt16(rect.width), height: UInt16(rect.height), content: content)
    }
}
