/// Who is looking at the screen: each session's streamer is one viewer, with its own record of
/// what changed since it last looked.
public struct ScreenViewer: Sendable, Hashable, CustomStringConvertible {
    public let id: UInt64
    public init(id: UInt64) { self.id = id }
    public var description: String { "viewer \(id)" }
}

/// Damage (areas that may have changed) kept per viewer, so one session's capture never hides a
/// change from another session that has not looked yet.
///
/// Memory is bounded: a viewer's list never holds more than `maximumRects` rectangles; beyond that
/// it collapses into their bounding box (over-reporting is safe, the tile compare confirms).
public struct DamageLedger: Sendable {
    public let maximumRects: Int
    private var pending: [ScreenViewer: [PixelRect]] = [:]

    public init(maximumRects: Int = 256) {
        precondition(maximumRects > 0, "a ledger must hold at least one rectangle")
        self.maximumRects = maximumRects
    }

    /// New damage: every known viewer has to look at it.
    public mutating func record(_ rects: [PixelRect]) {
        let nonEmpty = rects.filter { !$0.isEmpty }
        guard !nonEmpty.isEmpty else { return }
        for viewer in pending.keys {
            var list = pending[viewer, default: []]
            list.append(contentsOf: nonEmpty)
            if list.count > maximumRects {
                list = [list.dropFirst().reduce(list[0]) { $0.union($1) }]
            }
            pending[viewer] = list
        }
    }

    /// Whether `viewer` has something to look at (an unknown viewer has everything to look at).
    public func hasDamage(for viewer: ScreenViewer) -> Bool {
        pending[viewer].map { !$0.isEmpty } ?? true
    }

    /// The damage `viewer` has not seen, and from now on it has seen it. Nil for a viewer seen for
    /// the first time (or after `forgetAll`): it knows nothing, everything must be compared.
    public mutating func take(for viewer: ScreenViewer) -> [PixelRect]? {
        let known = pending[viewer]
        pending[viewer] = []
        return known
    }

    /// The viewer is gone; its damage is no longer kept.
    public mutating func remove(_ viewer: ScreenViewer) {
        pending[viewer] = nil
    }

    /// The screen itself changed (say, its size): every viewer starts over.
    public mutating func forgetAll() {
        pending = [:]
    }
}
