public import ZRCFrames
public import ZRCProtocol

/// Which rows of cells a renderer has to draw again for a set of changed local rectangles: the
/// rows they touch, widened to whole groups of `granule` rows (sixel images go in bands of 6
/// pixels, so a band must start and end on a cell boundary that is also a sixel boundary), merged
/// where they meet. Drawing only those rows keeps a small change cheap in renderers that cannot
/// update part of an image in place.
public enum CellBands {
    /// Past this share of the area, one band over everything is drawn instead.
    public static let wholeAreaShare = 0.6

    /// Row ranges (0-based, within the area), in order; the whole area when `changed` is nil.
    public static func rows(covering changed: [PixelRect]?, in area: TerminalArea, granule: Int = 1) -> [Range<Int>] {
        let whole = [0..<area.rows]
        guard let changed else { return whole }
        let step = max(1, granule)
        var ranges: [Range<Int>] = []
        for rect in changed where !rect.isEmpty {
            let first = max(0, rect.y / area.cellHeight) / step * step
            let last = min(area.rows, ((rect.maxY + area.cellHeight - 1) / area.cellHeight + step - 1) / step * step)
            if first < last { ranges.append(first..<last) }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in ranges {
            if let previous = merged.last, range.lowerBound <= previous.upperBound {
                merged[merged.count - 1] = previous.lowerBound..<max(previous.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        let covered = merged.reduce(0) { $0 + $1.count }
        return Double(covered) > wholeAreaShare * Double(area.rows) ? whole : merged
    }

    /// The smallest number of rows whose height in pixels is a multiple of both the cell height
    /// and `band` (6 for sixel).
    public static func granule(cellHeight: Int, band: Int) -> Int {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let height = max(1, cellHeight)
        return band / gcd(height, band)
    }
}
