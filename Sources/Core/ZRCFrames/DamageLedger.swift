public import ZRCProtocol
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
/// Each rectangle may carry the capture generation that will show it (the next read's): a viewer
/// whose picture was brought up to a generation some other way (an update another session made
/// from that capture) drops what that generation already shows (`skip`).
///
/// Memory is bounded: a viewer's list never holds more than `maximumRects` rectangles; beyond that
/// it collapses into their bounding box (over-reporting is safe, the tile compare confirms).
public struct DamageLedger: Sendable {
    public let maximumRects: Int
    private var pending: [ScreenViewer: [Entry]] = [:]

    private struct Entry: Sendable {
        var rect: PixelRect
        /// The first capture generation that shows this change (`.max`: unknown, never skipped).
        var generation: UInt64
    }

    public init(maximumRects: Int = 256) {
        precondition(maximumRects > 0, "a ledger must hold at least one rectangle")
        self.maximumRects = maximumRects
    }

    /// New damage: every known viewer has to look at it. `generation`: the first capture that
    /// will show it (the default, unknown, is never skipped).
    public mutating func record(_ rects: [PixelRect], generation: UInt64 = .max) {
        for viewer in pending.keys { record(rects, for: viewer, generation: generation) }
    }

    /// Damage only `viewer` has to look at (again): areas its capture could not show yet.
    public mutating func record(_ rects: [PixelRect], for viewer: ScreenViewer, generation: UInt64 = .max) {
        let fresh = rects.filter { !$0.isEmpty }.map { Entry(rect: $0, generation: generation) }
        guard !fresh.isEmpty, var list = pending[viewer] else { return }
        list.append(contentsOf: fresh)
        if list.count > maximumRects {
            let union = list.dropFirst().reduce(list[0].rect) { $0.union($1.rect) }
            list = [Entry(rect: union, generation: list.map(\.generation).max() ?? .max)]
        }
        pending[viewer] = list
    }

    /// Whether no viewer is known (none has looked, or all have left).
    public var hasNoViewers: Bool { pending.isEmpty }

    /// Whether `viewer` has something to look at (an unknown viewer has everything to look at).
    public func hasDamage(for viewer: ScreenViewer) -> Bool {
        pending[viewer].map { !$0.isEmpty } ?? true
    }

    /// The damage `viewer` has not seen, and from now on it has seen it. Nil for a viewer seen for
    /// the first time (or after `forgetAll`): it knows nothing, everything must be compared.
    public mutating func take(for viewer: ScreenViewer) -> [PixelRect]? {
        let known = pending[viewer]
        pending[viewer] = []
        return known.map { $0.map(\.rect) }
    }

    /// `viewer`'s picture now shows capture `generation`: what that capture shows is no longer
    /// owed (later damage, and damage of unknown generation, still is).
    public mutating func skip(for viewer: ScreenViewer, through generation: UInt64) {
        pending[viewer]?.removeAll { $0.generation <= generation }
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
