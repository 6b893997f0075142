/// When the host looks at the pointer (an X round trip for its shape and position): at once after
/// the controller's input, otherwise at most every `lookMicros` — each step of a busy session (a
/// download wakes one for every acknowledgement) must not cost a round trip — and, while nothing
/// else wakes the driver, often enough to follow it.
struct PointerWatch: Sendable {
    /// Whether the pointer has a shape on the controller, and when it last moved.
    private(set) var shown = false
    private var movedMicros: UInt64 = 0
    private var lookedMicros: UInt64?
    private var inputSinceLook = false

    /// Without new input the pointer is looked at no more often than this: under a 60 Hz frame,
    /// with room for the wake-up timer's lateness.
    static let lookMicros: UInt64 = 12_000

    mutating func inputCame() { inputSinceLook = true }

    /// Whether to look at the pointer in the step at `now` (if so, the look is counted as done).
    mutating func looks(now: UInt64) -> Bool {
        guard inputSinceLook || lookedMicros.map({ now &- $0 >= Self.lookMicros }) ?? true else { return false }
        lookedMicros = now
        inputSinceLook = false
        return true
    }

    /// The pointer was looked at: whether its shape is on the controller, and whether it moved.
    mutating func followed(shown: Bool, moved: Bool, now: UInt64) {
        self.shown = self.shown || shown
        if moved { movedMicros = now }
    }

    /// When to look again if nothing else wakes the driver: every frame while the pointer moves,
    /// more calmly once it has rested for a while (nil: it has no shape on the controller). Counted
    /// from the last look, not from this step: a step just short of `lookMicros` after a look
    /// skips it, and the next look must not then wait a whole interval more (up to 28 ms).
    func nextLookMicros(now: UInt64) -> UInt64? {
        guard shown else { return nil }
        // Never sooner than `looks` would look: a wake "now" that did not look would come again.
        let interval = max(now &- movedMicros < 2_000_000 ? 16_000 : 50_000, Self.lookMicros)
        guard let lookedMicros, lookedMicros &+ interval > now else { return now }
        return lookedMicros &+ interval
    }
}
