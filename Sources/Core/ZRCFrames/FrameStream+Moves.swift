import ZRCProtocol

/// Content that moved goes as copy rects, applied to `sent` as the controller will apply them.
extension FrameStream {
    /// Areas up to this many pixels left beside a move go lossless (a 5-pixel strip of a
    /// 1080-row page scrolled sideways is 5,400).
    static let exposedExactPixels = 65_536
    /// Moves per update at most (vertical runs count one each).
    static let maximumMoves = 16

    /// Brings `sent` closer to `screen` with moves, when the controller takes copy rects: the
    /// copy rects, and the tiles of `changed` that still differ after them.
    ///
    /// After the first moves, content left at another offset (a capture taken between two drawing
    /// requests, parts of a change sent at different times) may have moved too: more moves follow,
    /// each found and checked on the picture the ones before it left, each making whole tiles
    /// exact, all together within the screen's area (a limit the controller checks).
    mutating func applyMoves(within changed: TileMask, screen: PixelBuffer) -> (copies: [FrameRect], changed: TileMask) {
        guard configuration.encodings.contains(.copyRects), sent.width == screen.width, sent.height == screen.height else {
            return ([], changed)
        }
        var (moves, exact) = firstMoves(within: changed, screen: screen)
        var copies: [FrameRect] = []
        var remaining = changed
        while !moves.isEmpty {
            copies += moves.map { apply($0) }
            // What the moves did not bring up to date: tiles that had changed, and any a copy
            // covered without fixing (a window's frame, an overlay that stayed put) — not those
            // the move was checked to make exact, pixel by pixel.
            var unsure = remaining
            unsure.insert(covering: moves.map(\.destination))
            for tile in exact { unsure.remove(tile) }
            remaining = planner.changedTiles(previous: sent, current: screen, hints: unsure.mergedRects())
            let copied = copies.reduce(0) { $0 + Int($1.width) * Int($1.height) }
            guard copies.count < Self.maximumMoves,
                  let found = moveDetector.move(previous: sent, current: screen, changed: remaining, remembering: false),
                  found.exactTiles.count >= 2,
                  copied + found.move.destination.area <= screen.width * screen.height
            else { break }
            (moves, exact) = ([found.move], found.exactTiles)
        }
        return (copies, remaining)
    }

    /// The first moves, not yet applied, with the tiles they were checked to make exact: a move
    /// that goes on as the last one went, when it covers most of the change; else vertical scrolls
    /// (several runs of rows at one offset), or one area moved in any direction when those cover
    /// less.
    private mutating func firstMoves(within changed: TileMask, screen: PixelBuffer) -> ([ScrollDetector.Move], [TileGrid.Tile]) {
        guard let area = changed.bounds else { return ([], []) }
        let last = moveDetector.continued(previous: sent, current: screen, changed: changed)
        if let last, last.move.destination.area * 2 >= area.area { return ([last.move], last.exactTiles) }
        let rows = area.height >= 2 * ScrollDetector.minimumRunRows ? ScrollDetector.moves(previous: sent, current: screen, within: area) : []
        // Runs of whole rows cover a scrolled terminal; when they cover little of the change
        // (a window moved up, content beside it), a move of one area may do better.
        let rowsMoved = rows.reduce(0) { $0 + $1.destination.area }
        if rowsMoved * 2 < area.area, let found = last ?? moveDetector.search(previous: sent, current: screen, changed: changed),
           found.move.destination.area > rowsMoved {
            return ([found.move], found.exactTiles)
        }
        return (rows, [])
    }

    /// Applies `move` to `sent`, as the controller will; tiles sent lossily move with their
    /// pixels, so they are still refined.
    private mutating func apply(_ move: ScrollDetector.Move) -> FrameRect {
        sent.move(move.source, to: move.destination)
        if var mask = lossy {
            let moved = mask.tiles.map { mask.grid.rect(of: $0).intersection(move.source) }.filter { !$0.isEmpty }.map {
                PixelRect(x: $0.x + move.destination.x - move.source.x, y: $0.y + move.destination.y - move.source.y,
                          width: $0.width, height: $0.height)
            }
            mask.insert(covering: moved)
            lossy = mask
        }
        return UpdatePlanner.frameRect(move.destination, .copy(sourceX: UInt16(move.source.x), sourceY: UInt16(move.source.y)))
    }
}
