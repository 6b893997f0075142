public import ZRCProtocol
/// Which pixels of the controller's picture are not known to be exactly the host's: those last
/// drawn from JPEG, copied from such pixels, or not drawn at all yet. One bit per pixel, so a
/// copy rect carries its source's state exactly. A screenshot waits until none is left.
///
/// Kept only where asked for (`FrameCompositor.tracksExactness`): viewers do not pay for it.
public struct LossMask: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major, `wordsPerRow` 64-bit words per row; bit set = not exact.
    private var words: [UInt64]
    private let wordsPerRow: Int
    /// How many bits are set.
    public private(set) var inexactPixels: Int

    /// Every pixel starts inexact: nothing of the host's has been drawn yet.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        wordsPerRow = (self.width + 63) / 64
        words = [UInt64](repeating: 0, count: wordsPerRow * self.height)
        inexactPixels = 0
        mark(PixelRect(x: 0, y: 0, width: self.width, height: self.height), exact: false)
    }

    public var isExact: Bool { inexactPixels == 0 }

    public func isExact(x: Int, y: Int) -> Bool { words[y * wordsPerRow + x / 64] & (1 << UInt64(x % 64)) == 0 }

    /// `rect` (inside the picture) now holds exact pixels, or not.
    public mutating func mark(_ rect: PixelRect, exact: Bool) {
        guard rect.width > 0, rect.height > 0 else { return }
        let first = rect.x, last = rect.x + rect.width - 1
        for y in rect.y..<(rect.y + rect.height) {
            var column = first
            while column <= last {
                let word = y * wordsPerRow + column / 64
                let low = column % 64
                let high = min(63, last - (column - low))
                let bits: UInt64 = high == 63 ? ~0 << UInt64(low) : ((1 << UInt64(high + 1)) - 1) & (~0 << UInt64(low))
                let before = words[word]
                words[word] = exact ? before & ~bits : before | bits
                inexactPixels += words[word].nonzeroBitCount - before.nonzeroBitCount
                column += high - low + 1
            }
        }
    }

    /// `destination` now holds what `source` (the same size) held, exact where it was.
    public mutating func copy(from source: PixelRect, to destination: PixelRect) {
        guard source.width == destination.width, source.height == destination.height, source.width > 0, source.height > 0 else { return }
        var rows: [[Bool]] = []
        rows.reserveCapacity(source.height)
        for y in source.y..<(source.y + source.height) {
            rows.append((source.x..<(source.x + source.width)).map { isExact(x: $0, y: y) })
        }
        for (row, states) in rows.enumerated() {
            var start = 0
            while start < states.count {
                var end = start
                while end + 1 < states.count, states[end + 1] == states[start] { end += 1 }
                mark(PixelRect(x: destination.x + start, y: destination.y + row, width: end - start + 1, height: 1), exact: states[start])
                start = end + 1
            }
        }
    }
}
