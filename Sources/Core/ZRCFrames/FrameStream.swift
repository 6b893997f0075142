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
    let planner: UpdatePlanner
    /// The host pixels the controller's picture was made from.
    var sent = PixelBuffer(width: 0, height: 0)
    /// Tiles last sent as JPEG, to refine once still.
    var lossy: TileMask?
    var lastChangeMicros: UInt64 = 0
    private var nextFrameID: UInt64 = 1
    /// Frames sent and not yet acknowledged, oldest first.
    public private(set) var inFlight: [UInt64] = []
    /// A capture was skipped while a frame was in flight; take one as soon as it is acknowledged.
    public internal(set) var captureWanted = false
    /// How long the last `offer` or `refine` spent comparing and encoding (for stats and benchmarks).
    public internal(set) var lastStages = StageTimings(detectMicros: 0, encodeMicros: 0)

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
        let copies: [FrameRect]
        (copies, changed) = applyMoves(within: changed, screen: screen)
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
        return makeUpdate(rects, screenWidth: screen.width, screenHeight: screen.height, captureMicros: captureMicros, encodeDoneMicros: encodeDone,
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
                rects.append(UpdatePlanner.frameRect(rect, try UpdatePlanner.lossless(LosslessPixels.payload(screen, rect: rect),
                                                                                      encodings: encodings, encoder: &encoder)))
            } else if raw {
                rects.append(UpdatePlanner.frameRect(rect, .raw(bgrx: screen.crop(rect))))
            } else {
                let jpeg = try encoder.encodeJPEG(screen, rect: rect, quality: configuration.refineQuality, fullChroma: true)
                rects.append(UpdatePlanner.frameRect(rect, .jpeg(jpeg)))
            }
        }
        let encodeDone = clock()
        lastStages.encodeMicros = encodeDone &- detected
        return makeUpdate(rects, screenWidth: screen.width, screenHeight: screen.height, captureMicros: captureMicros, encodeDoneMicros: encodeDone,
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
    var partCursor = 0
    var moveDetector = MoveDetector()
    /// Changed tiles the last update left out.
    var deferred: TileMask?
    /// Whether the last update left parts of a change for later (the next `offer` takes them).
    public var owesParts: Bool { deferred != nil }

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
    mutating func makeUpdate(_ rects: [FrameRect], screenWidth: Int, screenHeight: Int, captureMicros: UInt64, encodeDoneMicros: UInt64,
                                     quality: Int) -> FrameUpdate {
        let hasJPEG = rects.contains { if case .jpeg = $0.content { true } else { false } }
        let quality = hasJPEG ? quality : 0
        let id = nextFrameID
        nextFrameID += 1
        inFlight.append(id)
        return FrameUpdate(frameID: id, captureMicros: captureMicros, encodeDoneMicros: encodeDoneMicros, sendMicros: encodeDoneMicros,
                           screenWidth: UInt32(screenWidth), screenHeight: UInt32(screenHeight), quality: UInt8(quality),
                           rects: rects)
    }
}
