public import ZRCProtocol

/// One controller's stream of frame updates, as a pure state machine (sans-IO).
///
/// - The first change after idle goes out at once. At most `maximumInFlight` frames are sent and
///   not yet acknowledged; beyond that, captures only mark that another is wanted, so a slow
///   controller gets the newest screen next, never a queue of stale frames. Two in flight let the
///   host encode the next frame while the controller decodes the last one.
/// - Few-colour areas (text, UI) go lossless at once. Photographic areas are sent as JPEG at
///   moderate quality; tiles sent that way are remembered and, once the screen has been still for
///   `refineDelayMicros`, re-sent losslessly (or at high quality with full chroma to a controller
///   without lossless rects), so a still picture ends up exact.
public struct FrameStream: Sendable {
    public struct Configuration: Sendable {
        public var motionQuality: Int
        public var refineQuality: Int
        public var refineDelayMicros: UInt64
        public var tileSize: Int
        /// A refinement this small (in raw BGRX bytes) is sent losslessly, so still text and
        /// drawings end up pixel-exact; larger ones as JPEG at `refineQuality`, 4:4:4.
        public var losslessRefinementLimit: Int
        /// Frames sent and not yet acknowledged, at most.
        public var maximumInFlight: Int
        /// The rect encodings both sides announced; at least one of `Capabilities.pictureEncodings`
        /// (a stream needs some way to send any picture).
        public var encodings: Capabilities
        /// Pixels one refinement update re-sends at most (whole tiles; at least one): a large still
        /// area is refined over several updates, each waiting for the previous one's
        /// acknowledgement, so a slow link is never blocked behind one huge update.
        public var maximumRefinementPixels: Int
        /// Changed pixels one update carries at most (whole tiles; at least one tile). The sender
        /// sets it from the path's rate, so that no update takes long to cross a slow link: small
        /// changes (a click's answer, typed text) go first, the rest of a large change follows in
        /// later updates, each with the newest pixels of what it covers.
        public var maximumUpdatePixels: Int = .max
        /// Where input just went (screen pixels), if recently: a partial update starts there.
        public var focus: (x: Int, y: Int)?

        public init(motionQuality: Int = 70, refineQuality: Int = 92, refineDelayMicros: UInt64 = 100_000,
                    tileSize: Int = TileChangeDetector.defaultTileSize, losslessRefinementLimit: Int = 1 << 20,
                    maximumInFlight: Int = 2, encodings: Capabilities = [.jpegRects, .solidRects, .rawRects],
                    maximumRefinementPixels: Int = .max) {
            precondition(maximumInFlight >= 1, "at least one frame must be allowed in flight")
            precondition(!encodings.isDisjoint(with: Capabilities.pictureEncodings), "a stream needs a picture encoding")  // checked by the caller
            self.maximumRefinementPixels = maximumRefinementPixels
            self.maximumInFlight = maximumInFlight
            self.encodings = encodings
            self.motionQuality = motionQuality
            self.refineQuality = refineQuality
            self.refineDelayMicros = refineDelayMicros
            self.tileSize = tileSize
            self.losslessRefinementLimit = losslessRefinementLimit
        }
    }

    /// Adjusted by the sender from acknowledgement times (`QualityController`).
    public var configuration: Configuration
    private let planner: UpdatePlanner
    /// The host pixels the controller's picture was made from.
    private var sent = PixelBuffer(width: 0, height: 0)
    private var lossy: TileMask?
    private var lastChangeMicros: UInt64 = 0
    private var nextFrameID: UInt64 = 1
    /// Frames sent and not yet acknowledged, oldest first.
    public private(set) var inFlight: [UInt64] = []
    /// A capture was skipped while a frame was in flight; take one as soon as it is acknowledged.
    public private(set) var captureWanted = false
    /// How long the last `offer` or `refine` spent comparing and encoding (for stats and benchmarks).
    public private(set) var lastStages = StageTimings(detectMicros: 0, encodeMicros: 0)

    public struct StageTimings: Sendable, Equatable {
        /// Confirming which tiles changed (the tile compare).
        public var detectMicros: UInt64
        /// Planning and encoding the rectangles (zero when nothing changed).
        public var encodeMicros: UInt64
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        planner = UpdatePlanner(tileSize: configuration.tileSize)
    }

    /// Whether a new capture would be used now.
    public var canSend: Bool { inFlight.count < configuration.maximumInFlight }

    /// Offers a fresh capture. Returns the update to send, or nil when nothing changed or a frame
    /// is still in flight (then `captureWanted` is set).
    /// `clock` gives microseconds on the host's clock: it stamps the encode-done time (the sender
    /// stamps `sendMicros` itself, just before writing).
    public mutating func offer(_ screen: PixelBuffer, hints: [PixelRect]?, captureMicros: UInt64, clock: () -> UInt64,
                               encoder: inout some RegionEncoder) throws -> FrameUpdate? {
        guard canSend else {
            captureWanted = true
            return nil
        }
        captureWanted = false
        let started = clock()
        // Tiles a partial update left out are looked at again, whether or not the screen reports
        // them changed since (its hints only cover what changed after the last capture).
        var hints = hints
        if let deferred, deferred.grid == TileGrid(width: screen.width, height: screen.height, tileSize: configuration.tileSize) {
            hints = hints.map { $0 + deferred.mergedRects() }
        }
        deferred = nil
        var changed = planner.changedTiles(previous: sent, current: screen, hints: hints)
        let detected = clock()
        lastStages = StageTimings(detectMicros: detected &- started, encodeMicros: 0)
        guard !changed.isEmpty else { return nil }
        var (copies, exact) = applyMoves(within: changed, screen: screen)
        var moved = copies.count
        while moved > 0 {
            // What the moves did not bring up to date: tiles that had changed, and any a copy
            // covered without fixing (a window's frame, an overlay that stayed put) — not those
            // the move was checked to make exact, pixel by pixel.
            var unsure = changed
            unsure.insert(covering: copies.suffix(moved).map { PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) })
            for tile in exact { unsure.remove(tile) }
            changed = planner.changedTiles(previous: sent, current: screen, hints: unsure.mergedRects())
            // Content left at another offset (a capture taken between two drawing requests, parts
            // of a change sent at different times) may have moved too: a few more moves, each
            // found and checked on the picture the ones before it left.
            moved = 0
            // Copies move at most the screen's area per update (a limit the controller checks).
            let copied = copies.reduce(0) { $0 + Int($1.width) * Int($1.height) }
            guard copies.count < Self.maximumMoves,
                  let found = moveDetector.move(previous: sent, current: screen, changed: changed, remembering: false),
                  // Progress: whole tiles made exact, never a copy that only shuffles what is left.
                  found.exactTiles.count >= 2,
                  copied + found.move.destination.area <= screen.width * screen.height
            else { break }
            copies.append(apply(found.move))
            exact = found.exactTiles
            moved = 1
        }
        let part = firstPart(of: changed, pixels: configuration.maximumUpdatePixels, focus: configuration.focus)
        if part.count < changed.count {
            var left = changed
            for tile in part.tiles { left.remove(tile) }
            deferred = left
        }
        changed = part
        // Beside a move, what is left is the strip it exposed: sent exact, it needs no refinement,
        // so content that keeps moving (a page scrolled sideways, a dragged window) stays exact.
        let exactArea = copies.isEmpty ? UpdatePlanner.smallAreaPixels : Self.exposedExactPixels
        let rects = try copies + planner.rects(changed: changed, previous: sent, current: screen, quality: configuration.motionQuality,
                                               fullChroma: false, encodings: configuration.encodings, exactAreaPixels: exactArea,
                                               encoder: &encoder)
        rememberLossy(rects, screen: screen)
        // Only the changed tiles are copied: `sent` stays this stream's own storage, never shared
        // with the source's framebuffer, so the source keeps updating it in place without a
        // copy-on-write of the whole screen.
        // A new size starts the controller's picture black, like this model: only what was sent
        // is copied, so parts of the first picture left for later are still owed.
        if sent.width != screen.width || sent.height != screen.height {
            sent = PixelBuffer(width: screen.width, height: screen.height)
        }
        for rect in changed.mergedRects() { sent.copy(rect, from: screen) }
        let encodeDone = clock()
        lastStages.encodeMicros = encodeDone &- detected
        lastChangeMicros = encodeDone
        return makeUpdate(rects, screen: screen, captureMicros: captureMicros, encodeDoneMicros: encodeDone,
                          quality: configuration.motionQuality)
    }

    /// The controller acknowledged `frameID`.
    public mutating func acknowledge(_ frameID: UInt64) {
        // Acknowledgements come in order; one also covers any older frame it overtook.
        if let index = inFlight.firstIndex(of: frameID) { inFlight.removeFirst(index + 1) }
    }

    /// When the next refinement is due, if any (the caller schedules a call to `refine` then).
    public var refinementDueMicros: UInt64? {
        guard let lossy, !lossy.isEmpty else { return nil }
        return lastChangeMicros + configuration.refineDelayMicros
    }

    /// Re-sends, exactly (or at high quality), the tiles last sent lossily, once the screen has
    /// been still long enough. `screen` must be the current capture; changed tiles are left to
    /// `offer`. At most `maximumRefinementPixels` go per update; the rest stay due, for the next.
    public mutating func refine(_ screen: PixelBuffer, captureMicros: UInt64, clock: () -> UInt64,
                                encoder: inout some RegionEncoder) throws -> FrameUpdate? {
        guard inFlight.isEmpty, let due = refinementDueMicros, clock() >= due, let mask = lossy,
              screen.width == sent.width, screen.height == sent.height
        else { return nil }
        let started = clock()
        var stillTiles = TileMask(grid: mask.grid)
        var left = TileMask(grid: mask.grid)
        var budget = configuration.maximumRefinementPixels
        for tile in mask.tiles where TileComparison.equal(sent, screen, in: mask.grid.rect(of: tile)) {
            let area = mask.grid.rect(of: tile).area
            if budget >= area || stillTiles.isEmpty {
                stillTiles.insert(tile)
                budget -= area
            } else {
                left.insert(tile)
            }
        }
        lossy = left.isEmpty ? nil : left
        let detected = clock()
        lastStages = StageTimings(detectMicros: detected &- started, encodeMicros: 0)
        guard !stillTiles.isEmpty else { return nil }
        let regions = stillTiles.mergedRects()
        let encodings = configuration.encodings
        // Lossless through the session's compressor when the controller takes it; else raw when
        // it is small enough (or JPEG is not an option), else JPEG at high quality with full chroma.
        let raw = encodings.contains(.rawRects)
            && (regions.reduce(0) { $0 + $1.area * PixelBuffer.bytesPerPixel } <= configuration.losslessRefinementLimit
                || !encodings.contains(.jpegRects))
        var rects: [FrameRect] = []
        for rect in regions {
            if encodings.contains(.losslessRects) {
                rects.append(UpdatePlanner.frameRect(rect, .lossless(try encoder.compressLossless(LosslessPixels.payload(screen, rect: rect)))))
            } else if raw {
                rects.append(UpdatePlanner.frameRect(rect, .raw(bgrx: screen.crop(rect))))
            } else {
                let jpeg = try encoder.encodeJPEG(screen, rect: rect, quality: configuration.refineQuality, fullChroma: true)
                rects.append(UpdatePlanner.frameRect(rect, .jpeg(jpeg)))
            }
        }
        let encodeDone = clock()
        lastStages.encodeMicros = encodeDone &- detected
        return makeUpdate(rects, screen: screen, captureMicros: captureMicros, encodeDoneMicros: encodeDone,
                          quality: configuration.refineQuality)
    }

    /// At most `pixels` worth of `changed` tiles: first those near `focus` (where input just
    /// went: its answer is usually there), then those of small changed areas (typed text beside
    /// motion), then the rest in turn from where the previous part stopped, so a change that
    /// keeps moving never starves the areas after it. What is left out stays different from
    /// `sent`, so a later update takes it up with its newest pixels.
    mutating func firstPart(of changed: TileMask, pixels: Int, focus: (x: Int, y: Int)?) -> TileMask {
        let grid = changed.grid
        guard pixels < changed.count * grid.tileSize * grid.tileSize else { return changed }
        var chosen = TileMask(grid: grid)
        var budget = pixels
        func take(_ tile: TileGrid.Tile) -> Bool {
            guard changed.contains(tile), !chosen.contains(tile) else { return true }
            let size = grid.rect(of: tile).area
            guard budget >= size || chosen.isEmpty else { return false }
            chosen.insert(tile)
            budget -= size
            return true
        }
        if let focus {
            let reach = 3 * grid.tileSize
            let near = PixelRect(x: focus.x - reach, y: focus.y - reach, width: 2 * reach, height: 2 * reach)
            // Nearest first: the budget may end before the neighbourhood does.
            let nearest = grid.tiles(overlapping: [near]).sorted { a, b in
                func distance(_ tile: TileGrid.Tile) -> Int {
                    let rect = grid.rect(of: tile)
                    let dx = max(rect.x - focus.x, 0, focus.x - rect.maxX + 1), dy = max(rect.y - focus.y, 0, focus.y - rect.maxY + 1)
                    return dx * dx + dy * dy
                }
                return distance(a) < distance(b)
            }
            for tile in nearest where !take(tile) { return chosen }
        }
        for area in changed.mergedRects() where area.area <= 16 * grid.tileSize * grid.tileSize {
            for tile in grid.tiles(overlapping: [area]) where !take(tile) { return chosen }
        }
        let count = grid.columns * grid.rows
        for step in 0..<count {
            let index = (partCursor + step) % count
            guard take(TileGrid.Tile(column: index % grid.columns, row: index / grid.columns)) else {
                partCursor = index
                return chosen
            }
        }
        return chosen
    }

    /// Where the next part of a large change starts (a tile index, row-major).
    private var partCursor = 0
    private var moveDetector = MoveDetector()
    /// Areas up to this many pixels left beside a move go lossless (a 5-pixel strip of a
    /// 1080-row page scrolled sideways is 5,400).
    static let exposedExactPixels = 65_536
    /// Changed tiles the last update left out.
    private var deferred: TileMask?

    /// Content that moved (a scroll) goes as copy rects, applied to `sent` as the controller will
    /// apply them; tiles sent lossily move with their pixels, so they are still refined.
    /// Worth looking only for a change of some height, when the controller takes copy rects.
    /// Moves that bring `sent` closer to `screen`, applied to `sent`, as copy rects; with the
    /// tiles they were checked to make exact. A move that goes on as the last one went is taken
    /// at once; else vertical scrolls (several runs of rows at one offset), and failing those,
    /// one area moved in any direction.
    private mutating func applyMoves(within changed: TileMask, screen: PixelBuffer) -> (copies: [FrameRect], exact: [TileGrid.Tile]) {
        guard configuration.encodings.contains(.copyRects), sent.width == screen.width, sent.height == screen.height,
              let area = changed.bounds
        else { return ([], []) }
        var moves: [ScrollDetector.Move] = []
        var exact: [TileGrid.Tile] = []
        if let found = moveDetector.continued(previous: sent, current: screen, changed: changed), found.move.destination.area * 2 >= area.area {
            moves = [found.move]
            exact = found.exactTiles
        } else {
            moves = area.height >= 2 * ScrollDetector.minimumRunRows ? ScrollDetector.moves(previous: sent, current: screen, within: area) : []
            // Runs of whole rows cover a scrolled terminal; when they cover little of the change
            // (a window moved up, content beside it), a move of one area may do better.
            let rowsMoved = moves.reduce(0) { $0 + $1.destination.area }
            if rowsMoved * 2 < area.area, let found = moveDetector.move(previous: sent, current: screen, changed: changed),
               found.move.destination.area > rowsMoved {
                moves = [found.move]
                exact = found.exactTiles
            }
        }
        return (moves.map { apply($0) }, exact)
    }

    /// Moves per update at most (vertical runs count one each).
    static let maximumMoves = 16

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

    private mutating func rememberLossy(_ rects: [FrameRect], screen: PixelBuffer) {
        let grid = TileGrid(width: screen.width, height: screen.height, tileSize: configuration.tileSize)
        var mask = lossy.flatMap { $0.grid == grid ? $0 : nil } ?? TileMask(grid: grid)
        let jpegAreas = rects.compactMap { rect -> PixelRect? in
            guard case .jpeg = rect.content else { return nil }
            return PixelRect(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
        }
        mask.insert(covering: jpegAreas)
        lossy = mask
    }

    /// `quality` is the JPEG quality used; the update says 0 when it holds no JPEG rect (lossless).
    private mutating func makeUpdate(_ rects: [FrameRect], screen: PixelBuffer, captureMicros: UInt64, encodeDoneMicros: UInt64,
                                     quality: Int) -> FrameUpdate {
        let hasJPEG = rects.contains { if case .jpeg = $0.content { true } else { false } }
        let quality = hasJPEG ? quality : 0
        let id = nextFrameID
        nextFrameID += 1
        inFlight.append(id)
        return FrameUpdate(frameID: id, captureMicros: captureMicros, encodeDoneMicros: encodeDoneMicros, sendMicros: encodeDoneMicros,
                           screenWidth: UInt32(screen.width), screenHeight: UInt32(screen.height), quality: UInt8(quality),
                           rects: rects)
    }
}
