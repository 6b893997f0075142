internal import CXCB
public import ZRCProtocol

/// One monitor of the screen, as RandR 1.5 lists them.
public struct MonitorInfo: Sendable, Hashable, CustomStringConvertible {
    /// RandR's name (the output name, such as "HDMI-1"; Xvfb calls its one monitor "screen").
    public let name: String
    /// Position in RandR's list, what `--monitor INDEX` counts from (0).
    public let index: Int
    public let isPrimary: Bool
    public let rect: PixelRect

    public init(name: String, index: Int, isPrimary: Bool, rect: PixelRect) {
        self.name = name
        self.index = index
        self.isPrimary = isPrimary
        self.rect = rect
    }

    public var description: String { "\(index): \(name) \(rect)\(isPrimary ? " (primary)" : "")" }
}

/// The screen's current size and its monitors, read afresh from the server.
///
/// The size in `X11Connection.screen` is the one at connect time; RandR can change it under a
/// running session. Read a layout now and then (or after damage reports an area outside the old
/// screen) and compare it with the previous one: a different `screenWidth`/`screenHeight` means
/// the capturer must be rebuilt on a new `X11Connection`, which the session itself survives.
public struct MonitorLayout: Sendable, Hashable {
    public let screenWidth: Int
    public let screenHeight: Int
    /// Never empty: without RandR 1.5, or with no active monitor, the whole screen is monitor 0,
    /// named "screen".
    public let monitors: [MonitorInfo]

    public var screenRect: PixelRect { PixelRect(x: 0, y: 0, width: screenWidth, height: screenHeight) }

    public init(screenWidth: Int, screenHeight: Int, monitors: [MonitorInfo]) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.monitors = monitors.isEmpty
            ? [MonitorInfo(name: "screen", index: 0, isPrimary: true, rect: PixelRect(x: 0, y: 0, width: screenWidth, height: screenHeight))]
            : monitors
    }

    /// Reads the current layout: two or three round trips, plus one per monitor name.
    public static func read(from connection: X11Connection) throws(X11Error) -> MonitorLayout {
        let raw = connection.handle.raw
        let root = connection.screen.rootWindow
        // The root window's geometry is the screen size now (the setup data is from connect time).
        let size = try withXCBReply(on: connection.handle, request: "GetGeometry of the root window", { error in
            xcb_get_geometry_reply(raw, xcb_get_geometry(raw, root), error)
        }) { reply in (Int(reply.pointee.width), Int(reply.pointee.height)) }
        guard connection.has(.randr), try ExtensionVersion.randr(on: connection) >= (1, 5) else {
            return MonitorLayout(screenWidth: size.0, screenHeight: size.1, monitors: [])
        }
        let found = try withXCBReply(on: connection.handle, request: "RANDR GetMonitors", { error in
            xcb_randr_get_monitors_reply(raw, xcb_randr_get_monitors(raw, root, 1 /* active only */), error)
        }) { reply in
            var list: [(atom: UInt32, primary: Bool, rect: PixelRect)] = []
            var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
            while iterator.rem > 0, let m = iterator.data?.pointee {
                list.append((m.name, m.primary != 0, PixelRect(x: Int(m.x), y: Int(m.y), width: Int(m.width), height: Int(m.height))))
                xcb_randr_monitor_info_next(&iterator)
            }
            return list
        }
        var monitors: [MonitorInfo] = []
        for (index, monitor) in found.enumerated() {
            let name = try atomName(monitor.atom, connection: connection)
            monitors.append(MonitorInfo(name: name, index: index, isPrimary: monitor.primary, rect: monitor.rect))
        }
        return MonitorLayout(screenWidth: size.0, screenHeight: size.1, monitors: monitors)
    }

    /// The monitor `selector` names: a decimal index into `monitors`, or else a name (exact, then
    /// ignoring case). Throws `.noSuchMonitor` listing the monitors there are.
    public func monitor(matching selector: String) throws(X11Error) -> MonitorInfo {
        if let index = Int(selector), monitors.indices.contains(index) { return monitors[index] }
        if let exact = monitors.first(where: { $0.name == selector }) { return exact }
        let folded = monitors.filter { $0.name.lowercased() == selector.lowercased() }
        if folded.count == 1 { return folded[0] }
        throw X11Error(.noSuchMonitor, "no monitor \"\(selector)\"; this screen has: \(monitors.map(\.description).joined(separator: ", "))")
    }

    private static func atomName(_ atom: UInt32, connection: X11Connection) throws(X11Error) -> String {
        let raw = connection.handle.raw
        return try withXCBReply(on: connection.handle, request: "GetAtomName of monitor name \(atom)", { error in
            xcb_get_atom_name_reply(raw, xcb_get_atom_name(raw, atom), error)
        }) { reply in
            let length = Int(xcb_get_atom_name_name_length(reply))
            guard length > 0, let bytes = xcb_get_atom_name_name(reply) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }
}
