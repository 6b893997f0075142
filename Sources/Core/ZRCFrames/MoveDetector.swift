import ZRCProtocol
/// Finds one area that moved in any direction between the controller's picture and the new screen
/// — a page scrolled sideways, a window dragged — so it travels as one copy rect plus what the
/// move exposed, instead of being encoded again. (`ScrollDetector` handles the common vertical
/// case with several row runs; this is for everything else.)
///
/// Candidates: the offset of the last move (motion usually continues), then a vote. For the vote,
/// a few hundred short segments ("anchors") of the new screen's changed area are hashed; every
/// segment position of the old screen's area is hashed with a rolling hash and looked up, and each
/// hit votes for the offset between the two. The winner is verified tile by tile with exact
/// comparisons, so a false vote costs time, never a wrong pixel.
public struct MoveDetector: Sendable {
    /// Pixels per anchor segment: long enough that unrelated content rarely collides.
    static let anchorWidth = 32
    /// Anchors agreeing on an offset before it is verified.
    static let minimumVotes = 3
    /// Tiles that must match before a move is worth a copy rect.
    static let minimumTiles = 2

    /// The offset (destination − source) of the last move found.
    public private(set) var lastOffset: (dx: Int, dy: Int)?

    public init() {}

    /// A move found, and the tiles it makes exact: whole tiles whose every pixel was compared. The
    /// rest of its rectangle (tiles on its edges, a few it covers without fixing) must be compared
    /// again after it is applied.
    public struct Found: Sendable {
        public var move: ScrollDetector.Move
        public var exactTiles: [TileGrid.Tile]
    }

    /// The last move's offset, if it still brings at least `minimumTiles` of `changed` up to date
    /// (cheap: motion usually goes on as it went).
    public func continued(previous: PixelBuffer, current: PixelBuffer, changed: TileMask) -> Found? {
        guard let last = lastOffset, previous.width == current.width, previous.height == current.height else { return nil }
        return Self.verified(dx: last.dx, dy: last.dy, previous: previous, current: current, changed: changed)
    }

    /// The move that brings the most of `changed` (tiles of `current`) up to date from `previous`
    /// (same size), if one does for at least `minimumTiles` tiles: the last offset, else a search.
    /// `remembering`: whether a move found by search becomes the offset tried first next time
    /// (not for a second move in the same picture, which is what is left over).
    public mutating func move(previous: PixelBuffer, current: PixelBuffer, changed: TileMask, remembering: Bool = true) -> Found? {
        continued(previous: previous, current: current, changed: changed)
            ?? search(previous: previous, current: current, changed: changed, remembering: remembering)
    }

    /// A move found by vote alone (for a caller that already tried `continued`).
    public mutating func search(previous: PixelBuffer, current: PixelBuffer, changed: TileMask, remembering: Bool = true) -> Found? {
        precondition(previous.width == current.width && previous.height == current.height, "images of different sizes")
        guard let area = changed.bounds, area.width >= Self.anchorWidth, changed.count >= Self.minimumTiles else { return nil }
        for offset in Self.votes(previous: previous, current: current, changed: changed, area: area) {
            if let found = Self.verified(dx: offset.dx, dy: offset.dy, previous: previous, current: current, changed: changed) {
                if remembering { lastOffset = offset }
                return found
            }
        }
        // The last offset stays a candidate: a click's answer between two scroll steps is no
        // reason to stop expecting the scroll.
        return nil
    }

    /// The tiles of `changed` whose pixels equal `previous` at the offset (the part of each tile
    /// whose source lies on the screen), as one rectangle: their bounding box when at least three
    /// quarters of its tiles match, nil otherwise.
    static func verified(dx: Int, dy: Int, previous: PixelBuffer, current: PixelBuffer, changed: TileMask) -> Found? {
        guard dx != 0 || dy != 0 else { return nil }
        let grid = changed.grid
        let reachable = current.bounds.intersection(PixelRect(x: dx, y: dy, width: current.width, height: current.height))
        var matched: PixelRect?
        var matchedTiles = 0
        var exactTiles: [TileGrid.Tile] = []
        // A tile that differs usually does so in its first row, so a wrong offset costs little.
        for tile in changed.tiles {
            let whole = grid.rect(of: tile)
            let part = whole.intersection(reachable)
            guard !part.isEmpty, equal(current, part, previous, dx: dx, dy: dy) else { continue }
            matchedTiles += 1
            if part == whole { exactTiles.append(tile) }
            matched = matched.map { $0.union(part) } ?? part
        }
        guard let destination = matched, matchedTiles >= minimumTiles else { return nil }
        // Copying over tiles that did not move would damage them; allow a few (a window's frame,
        // an overlay that stayed), not a rectangle that is mostly something else.
        let covered = grid.tiles(overlapping: [destination]).count
        guard matchedTiles * 4 >= covered * 3 else { return nil }
        let grown = grow(destination, within: reachable, by: grid.tileSize, dx: dx, dy: dy, previous: previous, current: current)
        return Found(move: ScrollDetector.Move(source: PixelRect(x: grown.x - dx, y: grown.y - dy, width: grown.width, height: grown.height),
                                               destination: grown),
                     exactTiles: exactTiles)
    }

    /// Widens `rect` a row or column at a time (up to `limit` on each side) while the pixels it
    /// takes in also match: whole tiles stop short of a window's edges, the copy need not. A strip
    /// counts as matching when at most one in eight of its 16-pixel pieces differs: a still
    /// overlay (the pointer, a dialog's edge) must not stop the copy of the page under it, and
    /// what the copy gets wrong there is compared again and sent after it.
    static func grow(_ rect: PixelRect, within reachable: PixelRect, by limit: Int, dx: Int, dy: Int, previous: PixelBuffer,
                     current: PixelBuffer) -> PixelRect {
        var rect = rect
        func matches(_ strip: PixelRect) -> Bool {
            current.bytes.withUnsafeBytes { new in
                previous.bytes.withUnsafeBytes { old in
                    let piece = 16
                    var pieces = 0, differing = 0
                    for row in strip.y..<strip.maxY {
                        var x = strip.x
                        while x < strip.maxX {
                            let width = min(piece, strip.maxX - x)
                            pieces += 1
                            if !TileComparison.rowsEqual(new.baseAddress! + row * current.bytesPerRow + x * 4,
                                                         old.baseAddress! + (row - dy) * previous.bytesPerRow + (x - dx) * 4, pixels: width) {
                                differing += 1
                            }
                            x += width
                        }
                    }
                    return differing * 8 <= pieces
                }
            }
        }
        // A column is one pixel wide: its pieces run down it instead.
        func columnMatches(_ x: Int) -> Bool {
            var pieces = 0, differing = 0
            var y = rect.y
            while y < rect.maxY {
                let height = min(16, rect.maxY - y)
                pieces += 1
                if !(y..<(y + height)).allSatisfy({ current.pixel(x: x, y: $0) == previous.pixel(x: x - dx, y: $0 - dy) }) { differing += 1 }
                y += height
            }
            return differing * 8 <= pieces
        }
        var steps = 0
        while steps < limit, rect.x > reachable.x, columnMatches(rect.x - 1) {
            rect = PixelRect(x: rect.x - 1, y: rect.y, width: rect.width + 1, height: rect.height)
            steps += 1
        }
        steps = 0
        while steps < limit, rect.maxX < reachable.maxX, columnMatches(rect.maxX) {
            rect = PixelRect(x: rect.x, y: rect.y, width: rect.width + 1, height: rect.height)
            steps += 1
        }
        steps = 0
        while steps < limit, rect.y > reachable.y, matches(PixelRect(x: rect.x, y: rect.y - 1, width: rect.width, height: 1)) {
            rect = PixelRect(x: rect.x, y: rect.y - 1, width: rect.width, height: rect.height + 1)
            steps += 1
        }
        steps = 0
        while steps < limit, rect.maxY < reachable.maxY, matches(PixelRect(x: rect.x, y: rect.maxY, width: rect.width, height: 1)) {
            rect = PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height + 1)
            steps += 1
        }
        return rect
    }

    static func equal(_ current: PixelBuffer, _ rect: PixelRect, _ previous: PixelBuffer, dx: Int, dy: Int) -> Bool {
        current.bytes.withUnsafeBytes { new in
            previous.bytes.withUnsafeBytes { old in
                for row in rect.y..<rect.maxY {
                    let target = new.baseAddress! + row * current.bytesPerRow + rect.x * 4
                    let source = old.baseAddress! + (row - dy) * previous.bytesPerRow + (rect.x - dx) * 4
                    if !TileComparison.rowsEqual(target, source, pixels: rect.width) { return false }
                }
                return true
            }
        }
    }

    /// Offsets with at least `minimumVotes` votes, most first (at most four: each is verified).
    static func votes(previous: PixelBuffer, current: PixelBuffer, changed: TileMask, area: PixelRect) -> [(dx: Int, dy: Int)] {
        let anchors = Anchors(current, changed: changed, area: area)
        guard !anchors.positions.isEmpty else { return [] }
        var votes: [Int: Int] = [:]  // key: packed offset
        var hits = 0
        let width = anchorWidth, limit = 50_000
        // Every fourth row of a tall area: anchors lie on rows of every remainder (see
        // `Anchors`), so whatever the vertical offset, a quarter of them are scanned — dozens of
        // votes for a real move, at a quarter of the cost. A search that finds nothing (every
        // frame of a video) then costs about a millisecond at 1080p, so it is never skipped.
        let rowStride = area.height >= 128 ? 4 : 1
        previous.bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            rows: for row in stride(from: area.y, to: area.maxY, by: rowStride) {
                let line = base + row * previous.bytesPerRow
                var hash: UInt64 = 0
                for x in area.x..<(area.x + width) { hash = hash &* Anchors.base &+ UInt64(line.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self) & 0xFF_FFFF) }
                var x = area.x
                while true {
                    if anchors.mayContain(hash), let found = anchors.positions[hash] {
                        for anchor in found where anchor.x != x || anchor.y != row {
                            votes[Self.pack(dx: anchor.x - x, dy: anchor.y - row), default: 0] += 1
                            hits += 1
                        }
                        if hits >= limit { break rows }
                    }
                    let next = x + width
                    guard next < area.maxX else { break }
                    let leaving = UInt64(line.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self) & 0xFF_FFFF)
                    let entering = UInt64(line.loadUnaligned(fromByteOffset: next * 4, as: UInt32.self) & 0xFF_FFFF)
                    hash = (hash &- leaving &* Anchors.leadingPower) &* Anchors.base &+ entering
                    x += 1
                }
            }
        }
        return votes.filter { $0.value >= minimumVotes }.sorted { $0.value > $1.value }.prefix(4).map { unpack($0.key) }
    }

    static func pack(dx: Int, dy: Int) -> Int { (dy + 0x8000) << 16 | (dx + 0x8000) }
    static func unpack(_ key: Int) -> (dx: Int, dy: Int) { (dx: (key & 0xFFFF) - 0x8000, dy: (key >> 16) - 0x8000) }
}

/// Hashes of short segments of the new screen, spread over its changed tiles, with a bitmap that
/// answers most misses of the rolling scan without a dictionary lookup.
struct Anchors {
    static let base: UInt64 = 0x100_0000_01B3
    /// base^(anchorWidth − 1): what the leaving pixel contributes to a rolling hash.
    static let leadingPower: UInt64 = (1..<MoveDetector.anchorWidth).reduce(1) { power, _ in power &* base }
    static let rowsSampled = 48, perRow = 16

    var positions: [UInt64: [(x: Int, y: Int)]] = [:]
    private var filter = [UInt64](repeating: 0, count: 1 << 10)  // 65,536 bits

    init(_ image: PixelBuffer, changed: TileMask, area: PixelRect) {
        let width = MoveDetector.anchorWidth
        let rowStep = max(1, area.height / Self.rowsSampled), columnStep = max(width, area.width / Self.perRow)
        image.bytes.withUnsafeBytes { raw in
            for (index, sampled) in stride(from: area.y + rowStep / 2, to: area.maxY, by: rowStep).enumerated() {
                // Rows of every remainder modulo 4, for the scan's every-fourth-row stride.
                let row = min(area.maxY - 1, sampled + index % 4)
                let line = raw.baseAddress! + row * image.bytesPerRow
                for x in stride(from: area.x, through: area.maxX - width, by: columnStep) {
                    guard changed.contains(TileGrid.Tile(column: x / changed.grid.tileSize, row: row / changed.grid.tileSize)) else { continue }
                    var hash: UInt64 = 0
                    var uniform = true
                    let first = line.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self) & 0xFF_FFFF
                    for column in x..<(x + width) {
                        let pixel = line.loadUnaligned(fromByteOffset: column * 4, as: UInt32.self) & 0xFF_FFFF
                        uniform = uniform && pixel == first
                        hash = hash &* Self.base &+ UInt64(pixel)
                    }
                    // One colour matches everywhere: it would vote for every offset.
                    guard !uniform else { continue }
                    if positions[hash, default: []].count < 2 { positions[hash, default: []].append((x, row)) }
                    filter[Int(hash >> 6 & 0x3FF)] |= 1 << (hash & 63)
                }
            }
        }
    }

    func mayContain(_ hash: UInt64) -> Bool { filter[Int(hash >> 6 & 0x3FF)] & (1 << (hash & 63)) != 0 }
}
