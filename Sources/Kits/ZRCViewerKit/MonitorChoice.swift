public import ZRCProtocol

/// Which of the host's monitors the viewer shows: all of the screen (nil) or one, kept by name
/// across layout changes and reconnects (a monitor that went away falls back to all of them).
public struct MonitorChoice: Sendable, Equatable {
    /// The host's layout as it last said (names sanitized).
    public private(set) var monitors: [MonitorArea] = []
    /// The index of the monitor shown; nil: the whole screen.
    public private(set) var shown: Int?
    private var shownName: String?

    public init() {}

    /// The area shown (nil: the whole screen).
    public var area: MonitorArea? { shown.map { monitors[$0] } }

    /// The host sent a layout: the choice is kept if its monitor is still there. Returns a notice
    /// when the monitor shown went away.
    public mutating func adopt(_ layout: [MonitorArea]) -> String? {
        monitors = layout.map {
            var area = $0
            area.name = TerminalSafeText.sanitized(area.name)
            return area
        }
        guard let name = shownName else { return nil }
        if let index = monitors.firstIndex(where: { $0.name == name }), monitors.count > 1 {
            shown = index
            return nil
        }
        shown = nil
        shownName = nil
        return "monitor \(name) is gone: showing all monitors"
    }

    /// Shows monitor `index` (nil or out of range: all of them); says what is shown.
    public mutating func show(_ index: Int?) -> String {
        guard let index, monitors.indices.contains(index), monitors.count > 1 else {
            shown = nil
            shownName = nil
            return monitors.count > 1 ? "showing all \(monitors.count) monitors" : "the host has one monitor"
        }
        shown = index
        shownName = monitors[index].name
        let monitor = monitors[index]
        return "showing monitor \(index + 1) of \(monitors.count): \(label(monitor)) (\(monitor.width)×\(monitor.height))"
    }

    /// All → the first → … → the last → all again.
    public mutating func cycle() -> String {
        show(shown.map { $0 + 1 } ?? 0)
    }

    private func label(_ monitor: MonitorArea) -> String {
        monitor.name.isEmpty ? (monitor.isPrimary ? "primary" : "unnamed") : monitor.name + (monitor.isPrimary ? ", primary" : "")
    }
}
