public import ZRCProtocol

/// Turns a captured screen into the rectangles of the next frame update: only what differs from
/// what the controller already has, each area in the encoding that suits its content.
///
/// Per changed area: a single colour goes as a solid rect; an area of few colours (text, UI) as a
/// lossless palette; a photographic one as JPEG while things move (refined later), or lossless
/// true colour when JPEG is not wanted. Textured areas are cut down to the exact bounds of their
/// changed pixels, so a typed glyph costs its own size, not a 64×64 tile.
public struct UpdatePlanner: Sendable {
    public let detector: TileChangeDetector

    public init(tileSize: Int = TileChangeDetector.defaultTileSize) {
        detector = TileChangeDetector(tileSize: tileSize)
    }

    /// The rectangles that bring `previous` (the controller's picture) up to `current`.
    /// `previous` of another size means "the controller has nothing": the whole screen is sent.
    public func rects(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]?, quality: Int, fullChroma: Bool,
                      encodings: Capabilities = [.jpegRects, .solidRects, .rawRects],
                      encoder: inout some RegionEncoder) throws -> [FrameRect] {
        try rects(changed: changedTiles(previous: previous, current: current, hints: hints), previous: previous, current: current,
                  quality: quality, fullChroma: fullChroma, encodings: encodings, encoder: &encoder)
    }

    /// The tiles of `current` that differ from `previous` (all of them when the sizes differ).
    public func changedTiles(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]?) -> TileMask {
        guard previous.width == current.width, previous.height == current.height else {
            return TileMask.all(TileGrid(width: current.width, height: current.height, tileSize: detector.tileSize))
        }
        return detector.changedTiles(previous: previous, current: current, hints: hints)
    }

    /// The rectangles for tiles already known to have changed (`changed` must be on `current`'s
    /// grid); `previous` (when it has `current`'s size) narrows each area to its changed pixels.
    /// Only `encodings` are used: solid tiles go like textured ones to a controller without solid
    /// rects; textured ones as described above, or raw to a controller with neither JPEG nor
    /// lossless rects.
    public func rects(changed: TileMask, previous: PixelBuffer?, current: PixelBuffer, quality: Int, fullChroma: Bool,
                      encodings: Capabilities = [.jpegRects, .solidRects, .rawRects], exactAreaPixels: Int = smallAreaPixels,
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
        let comparable = previous.flatMap { $0.width == current.width && $0.height == current.height ? $0 : nil }
        var result = solid
        for merged in textured.mergedRects() {
            let rect = comparable.map { TileComparison.differingBounds($0, current, in: merged) ?? merged } ?? merged
            result.append(try encode(rect, of: current, quality: quality, fullChroma: fullChroma, encodings: encodings,
                                     exactAreaPixels: exactAreaPixels, encoder: &encoder))
        }
        return result
    }

    /// One textured area in the best encoding the controller takes: lossless when it has few
    /// colours, is small, or JPEG is unavailable; JPEG otherwise; raw as the last resort.
    /// `exactAreaPixels`: areas up to this size go lossless whatever their colours.
    public func encode(_ rect: PixelRect, of current: PixelBuffer, quality: Int, fullChroma: Bool, encodings: Capabilities,
                       exactAreaPixels: Int = smallAreaPixels, encoder: inout some RegionEncoder) throws -> FrameRect {
        // Narrowed to its changed pixels, a textured tile may turn out to be one colour.
        if encodings.contains(.solidRects), let colour = TileComparison.solidColour(of: current, in: rect) {
            return Self.frameRect(rect, .solid(pixel: colour))
        }
        if encodings.contains(.losslessRects) {
            if let palette = LosslessPixels.palettePayload(current, rect: rect) {
                return Self.frameRect(rect, try Self.lossless(palette, encodings: encodings, encoder: &encoder))
            }
            // A JPEG's headers and tables alone take about 600 bytes: a small area is smaller exact.
            if !encodings.contains(.jpegRects) || rect.area <= exactAreaPixels {
                return Self.frameRect(rect, try Self.lossless(LosslessPixels.trueColourPayload(current, rect: rect), encodings: encodings,
                                                              encoder: &encoder))
            }
        }
        if encodings.contains(.jpegRects) {
            return Self.frameRect(rect, .jpeg(try encoder.encodeJPEG(current, rect: rect, quality: quality, fullChroma: fullChroma)))
        }
        return Self.frameRect(rect, .raw(bgrx: current.crop(rect)))
    }

    /// A lossless payload as a whole frame of its own when `encodings` include them (the sender
    /// includes them while its updates are shared with controllers that cannot take a shared
    /// stream), else as a chunk of the stream the controller decodes (the session's, or one it
    /// shares with others, maybe restarted: `RegionEncoder.losslessContent`), which compresses
    /// better by referring to what it sent before.
    static func lossless(_ payload: [UInt8], encodings: Capabilities, encoder: inout some RegionEncoder) throws -> FrameRect.Content {
        encodings.contains(.losslessFrames) ? .losslessFrame(try encoder.compressLosslessFrame(payload))
            : try encoder.losslessContent(payload)
    }

    /// Areas up to this many pixels (32×32) go lossless even when they hold many colours.
    public static let smallAreaPixels = 1024

    static func frameRect(_ rect: PixelRect, _ content: FrameRect.Content) -> FrameRect {
        FrameRect(x: UInt16(rect.x), y: UInt16(rect.y), width: UInt16(rect.width), height: UInt16(rect.height), content: content)
    }
}
