public import ZRCProtocol
/// Finds content that moved vertically between the controller's picture and the new screen — a
/// terminal or a page scrolling — so it can travel as copy rects plus the newly exposed strip
/// instead of being encoded again.
///
/// Within the changed area, every row is hashed (sampled) in both pictures; rows of the new screen
/// whose hash appears in the old one at another height vote for that offset. The winning offset
/// is then verified row by row (exact comparison, not hashes) and the runs of rows that match
/// become the moves. Rows of one colour match everywhere and do not vote.
public enum ScrollDetector {
    /// One area to copy within the controller's picture.
    public struct Move: Sendable, Equatable {
        public var source: PixelRect
        public var destination: PixelRect
    }

    /// Runs shorter than this are left to the encoder: copying a few rows saves little.
    public static let minimumRunRows = 8
    /// At least this many rows must both change and match the move for it to count.
    public static let minimumMatchedRows = 4

    /// The moves that bring `previous` closer to `current` within `area` (both images the same
    /// size), ordered so that applying them one after another never overwrites a row a later one
    /// still has to read. Empty when nothing moved.
    public static func moves(previous: PixelBuffer, current: PixelBuffer, within area: PixelRect) -> [Move] {
        precondition(previous.width == current.width && previous.height == current.height, "images of different sizes")
        let area = area.intersection(current.bounds)
        guard area.height >= minimumRunRows, area.width >= 8 else { return [] }
        let old = RowHashes(previous, area: area)
        let new = RowHashes(current, area: area)
        guard let offset = bestOffset(old: old, new: new, area: area) else { return [] }
        return verifiedRuns(offset: offset, previous: previous, current: current, old: old, new: new, area: area)
    }

    /// The offset (destination row − source row) most changed rows vote for, if enough do.
    static func bestOffset(old: RowHashes, new: RowHashes, area: PixelRect) -> Int? {
        var rowsByHash: [UInt64: [Int]] = [:]
        for row in 0..<area.height where !old.uniform[row] {
            // A few positions per hash suffice; repeated rows (blank lines, rules) would otherwise
            // make this quadratic.
            if rowsByHash[old.hashes[row], default: []].count < 4 { rowsByHash[old.hashes[row], default: []].append(row) }
        }
        var votes: [Int: Int] = [:]
        for row in 0..<area.height where !new.uniform[row] && new.hashes[row] != old.hashes[row] {
            for source in rowsByHash[new.hashes[row]] ?? [] where source != row { votes[row - source, default: 0] += 1 }
        }
        guard let (offset, count) = votes.max(by: { ($0.value, -abs($0.key)) < ($1.value, -abs($1.key)) }),
              count >= minimumMatchedRows
        else { return nil }
        return offset
    }

    /// Runs of destination rows whose pixels equal the source rows `offset` above (or below),
    /// as moves in a safe order.
    static func verifiedRuns(offset: Int, previous: PixelBuffer, current: PixelBuffer, old: RowHashes, new: RowHashes,
                             area: PixelRect) -> [Move] {
        let first = max(0, offset), last = area.height + min(0, offset)  // destination rows, relative to the area
        var moves: [Move] = []
        var runStart: Int?
        var changedInRun = 0
        func close(at end: Int) {
            guard let start = runStart else { return }
            if end - start >= minimumRunRows && changedInRun >= minimumMatchedRows {
                let destination = PixelRect(x: area.x, y: area.y + start, width: area.width, height: end - start)
                moves.append(Move(source: PixelRect(x: area.x, y: area.y + start - offset, width: area.width, height: end - start),
                                  destination: destination))
            }
            runStart = nil
            changedInRun = 0
        }
        for row in first..<max(first, last) {
            let matches = new.hashes[row] == old.hashes[row - offset]
                && rowsEqual(current, row: area.y + row, previous, row: area.y + row - offset, x: area.x, width: area.width)
            if matches {
                if runStart == nil { runStart = row }
                if new.hashes[row] != old.hashes[row] { changedInRun += 1 }
            } else {
                close(at: row)
            }
        }
        close(at: max(first, last))
        // Moving up (offset < 0) reads below what it writes: top runs first. Moving down, bottom first.
        return offset < 0 ? moves : moves.reversed()
    }

    static func rowsEqual(_ a: PixelBuffer, row rowA: Int, _ b: PixelBuffer, row rowB: Int, x: Int, width: Int) -> Bool {
        a.bytes.withUnsafeBytes { left in
            b.bytes.withUnsafeBytes { right in
                TileComparison.rowsEqual(left.baseAddress! + rowA * a.bytesPerRow + x * 4, right.baseAddress! + rowB * b.bytesPerRow + x * 4,
                                         pixels: width)
            }
        }
    }
}

/// A hash of every row of an area (padding bytes ignored), and whether the row is one colour.
///
/// Rows are sampled, not read whole: at most `maximumSamples` pixels spread across the row. A
/// full-screen change then costs a few hundred thousand reads instead of millions, and a false
/// match costs nothing but a vote, since every move is verified pixel by pixel.
struct RowHashes {
    static let maximumSamples = 64

    var hashes: [UInt64]
    var uniform: [Bool]

    init(_ image: PixelBuffer, area: PixelRect) {
        hashes = [UInt64](repeating: 0, count: area.height)
        uniform = [Bool](repeating: false, count: area.height)
        let step = max(1, area.width / Self.maximumSamples)
        image.bytes.withUnsafeBytes { raw in
            for row in 0..<area.height {
                let start = (area.y + row) * image.bytesPerRow + area.x * 4
                let first = raw.loadUnaligned(fromByteOffset: start, as: UInt32.self) & 0x00FF_FFFF
                var hash: UInt64 = 0xCBF2_9CE4_8422_2325
                var same = true
                var column = 0
                while column < area.width {
                    let pixel = raw.loadUnaligned(fromByteOffset: start + column * 4, as: UInt32.self) & 0x00FF_FFFF
                    same = same && pixel == first
                    hash = (hash ^ UInt64(pixel)) &* 0x0000_0100_0000_01B3
                    column += step
                }
                // The last pixel always counts, so a change at the right edge is never invisible.
                let last = raw.loadUnaligned(fromByteOffset: start + (area.width - 1) * 4, as: UInt32.self) & 0x00FF_FFFF
                hashes[row] = (hash ^ UInt64(last)) &* 0x0000_0100_0000_01B3
                uniform[row] = same && last == first
            }
        }
    }
}
