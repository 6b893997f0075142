import Foundation
import Logging
import ZRCFrames
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCX11

/// The X11 screen as the host's `ScreenSource` and `InputSink`, all on one XCB connection:
/// MIT-SHM capture (GetImage fallback), XDamage for what changed, XTest for input, XFixes for the
/// cursor, RandR for the monitor to share.
///
/// XDamage reports over-cover (a redraw with identical pixels still counts); they become hints
/// that limit the tile compare to the damaged tiles, and no damage means no capture at all, so a
/// static screen costs a few event polls per second. When the screen size changes (RandR), the
/// connection is rebuilt and the next capture simply has the new size: sessions carry on.
actor X11ScreenSource: ScreenSource, InputSink {
    private let displayName: String?
    private let monitorSelector: String?
    private let logger: Logger
    private var x11: Parts
    private var pendingHints: [PixelRect] = []
    private var firstCapture = true
    private var shape: CursorShape?
    private var lastLayoutCheck = ContinuousClock.now

    /// Everything tied to one connection, rebuilt together after a screen-size change.
    private struct Parts {
        let connection: X11Connection
        let capturer: ScreenCapturer
        let damage: DamageMonitor
        let injector: InputInjector
        let cursor: CursorMonitor?
        /// The shared area in root-window coordinates.
        let area: ScreenRect
        let layout: MonitorLayout
    }

    init(displayName: String?, monitor: String?, logger: Logger) throws {
        self.displayName = displayName
        monitorSelector = monitor
        self.logger = logger
        x11 = try Self.connect(displayName: displayName, monitor: monitor, logger: logger)
    }

    private static func connect(displayName: String?, monitor: String?, logger: Logger) throws -> Parts {
        let connection = try X11Connection(displayName: displayName)
        let layout = try MonitorLayout.read(from: connection)
        let area = try monitor.map { try layout.monitor(matching: $0).rect } ?? layout.screenRect
        let capturer = try ScreenCapturer(connection: connection, logger: logger)
        let parts = Parts(connection: connection, capturer: capturer, damage: try DamageMonitor(connection: connection),
                          injector: try InputInjector(connection: connection), cursor: try? CursorMonitor(connection: connection),
                          area: area, layout: layout)
        let method = capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage"
        logger.notice("sharing X display \(connection.displayName), area \(area) of \(layout.screenWidth)x\(layout.screenHeight) (capture via \(method), XDamage, XTest)")
        return parts
    }

    func capture() async throws -> ScreenCapture {
        try checkLayout()
        try collectDamage()
        let hints = firstCapture ? nil : pendingHints
        firstCapture = false
        pendingHints = []
        let image = try x11.capturer.capture(x11.area)
        let captured = WireClock.monotonicMicros()
        return ScreenCapture(pixels: PixelBuffer(width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                                 bytes: image.pixels),
                             hints: hints, captureMicros: captured)
    }

    func waitForChange(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            do {
                try collectDamage()
            } catch {
                // Without damage events, treat every wait as a possible change: capture and compare.
                logger.warning("XDamage failed: \(error)")
                try? await Task.sleep(for: timeout)
                return true
            }
            if !pendingHints.isEmpty { return true }
            // Polling the connection's event queue is cheap; a short sleep keeps latency low
            // without a thread blocked in poll(2).
            try? await Task.sleep(for: min(.milliseconds(4), deadline - clock.now))
        }
        return !pendingHints.isEmpty
    }

    /// Re-reads the screen layout about once a second; on a size change, reconnects.
    private func checkLayout() throws {
        guard ContinuousClock.now - lastLayoutCheck >= .seconds(1) else { return }
        lastLayoutCheck = .now
        let layout = try MonitorLayout.read(from: x11.connection)
        guard layout.screenWidth != x11.layout.screenWidth || layout.screenHeight != x11.layout.screenHeight else { return }
        logger.notice("the screen changed to \(layout.screenWidth)x\(layout.screenHeight); reconnecting to the display")
        try? x11.injector.releaseAll()
        x11 = try Self.connect(displayName: displayName, monitor: monitorSelector, logger: logger)
        firstCapture = true
        shape = nil
    }

    /// Damage in root coordinates, clipped to the shared area and moved into its coordinates.
    private func collectDamage() throws {
        let area = PixelRect(x: x11.area.x, y: x11.area.y, width: x11.area.width, height: x11.area.height)
        for rect in try x11.damage.pendingDamage() {
            let clipped = PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height).intersection(area)
            guard !clipped.isEmpty else { continue }
            pendingHints.append(PixelRect(x: clipped.x - area.x, y: clipped.y - area.y, width: clipped.width, height: clipped.height))
        }
    }

    func cursor() async throws -> CursorState? {
        guard let monitor = x11.cursor else { return nil }
        if let image = try monitor.changedImage() ?? (shape == nil ? monitor.currentImage() : nil),
           image.width <= WireLimits.maxCursorSide, image.height <= WireLimits.maxCursorSide {
            shape = CursorShape(shapeID: image.serial, width: UInt16(image.width), height: UInt16(image.height),
                                hotX: UInt16(image.hotspotX), hotY: UInt16(image.hotspotY), rgba: image.rgba)
        }
        guard let shape else { return nil }
        let position = try monitor.pointerPosition()
        return CursorState(x: Int32(position.x - x11.area.x), y: Int32(position.y - x11.area.y), shape: shape)
    }

    func inject(_ event: InputEvent) async throws {
        // The controller speaks in shared-area coordinates; XTest in root coordinates.
        let (dx, dy) = (x11.area.x, x11.area.y)
        switch event {
        case .pointerMove(let x, let y):
            try x11.injector.movePointer(x: Int(x) + dx, y: Int(y) + dy)
        case .button(let number, let pressed, let x, let y):
            try x11.injector.movePointer(x: Int(x) + dx, y: Int(y) + dy)
            try x11.injector.button(Int(number), pressed: pressed)
        case .scroll(let horizontal, let vertical, let x, let y):
            try x11.injector.movePointer(x: Int(x) + dx, y: Int(y) + dy)
            try x11.injector.scroll(down: Int(vertical), right: Int(horizontal))
        case .key(let keysym, let pressed, let modifiers):
            try x11.injector.key(keysym, pressed: pressed, modifiers: Self.x11Modifiers(modifiers))
        case .text(let text):
            try x11.injector.typeText(text)
        }
    }

    func releaseAll() async {
        do {
            try x11.injector.releaseAll()
        } catch {
            logger.warning("could not release held keys and buttons: \(error)")
        }
    }

    private static func x11Modifiers(_ modifiers: ZRCProtocol.KeyModifiers) -> ZRCX11.KeyModifiers {
        var result: ZRCX11.KeyModifiers = []
        if modifiers.contains(.shift) { result.insert(.shift) }
        if modifiers.contains(.control) { result.insert(.control) }
        if modifiers.contains(.alt) { result.insert(.alt) }
        if modifiers.contains(.super) { result.insert(.super) }
        return result
    }
}
