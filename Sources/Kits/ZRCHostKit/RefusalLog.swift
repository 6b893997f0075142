/// Turns a flood of refused or failed connections into a few log lines: the first of a source and
/// reason is logged at once, the rest are counted and summarised when the window closes
/// ("refused: too many handshakes in progress — 8381 more connections from 192.0.2.7 in the last
/// 30 s"). Pure: the caller supplies "now" and writes the lines. Memory is bounded: beyond
/// `maximumSources` distinct sources, further ones are counted together.
struct RefusalLog: Sendable {
    struct Key: Hashable, Sendable {
        let source: String
        let reason: String
    }

    private struct Window: Sendable {
        let startMicros: UInt64
        var suppressed: Int
    }

    static let windowMicros: UInt64 = 30_000_000
    static let maximumSources = 1024
    static let otherSources = "other addresses"

    private var windows: [Key: Window] = [:]

    /// A connection from `source` was refused for `reason`: the lines to log now.
    mutating func refused(source: String, reason: String, nowMicros: UInt64) -> [String] {
        var lines = flush(nowMicros: nowMicros)
        var key = Key(source: source, reason: reason)
        if windows[key] == nil, windows.count >= Self.maximumSources { key = Key(source: Self.otherSources, reason: reason) }
        if var window = windows[key] {
            window.suppressed += 1
            windows[key] = window
        } else {
            windows[key] = Window(startMicros: nowMicros, suppressed: 0)
            lines.append("\(reason) (connection from \(key.source))")
        }
        return lines
    }

    /// Summaries of the windows that closed by `now`.
    mutating func flush(nowMicros: UInt64) -> [String] {
        var lines: [String] = []
        for (key, window) in windows where nowMicros >= window.startMicros &+ Self.windowMicros || nowMicros < window.startMicros {
            windows[key] = nil
            if window.suppressed > 0 {
                lines.append("\(key.reason) — \(window.suppressed) more connection\(window.suppressed == 1 ? "" : "s") from \(key.source) "
                    + "in the last \(Self.windowMicros / 1_000_000) s")
            }
        }
        return lines.sorted()
    }
}
