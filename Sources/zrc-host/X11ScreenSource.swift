import Foundation
import Logging
import ZRCFrames
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCX11

/// The X11 screen as the host's `ScreenSource` and `InputSink`, all on one XCB connection:
/// MIT-SHM capture (GetImage fallback), XDamage for what changed, XTest for input.
///
/// XDamage reports over-cover (a redraw with identical pixels still counts); they become hints
/// that limit the tile compare to the damaged tiles, and no damage means no capture at all, so a
/// static screen costs a few event polls per second.
actor X11ScreenSource: ScreenSource, InputSink {
    private let capturer: ScreenCapturer
    private let damage: DamageMonitor
    private let injector: InputInjector
    private let cursorMonitor: CursorMonitor?
    private var shape: CursorShape?
    private let logger: Logger
    private var pendingHints: [PixelRect] = []
    private var firstCapture = true

    init(displayName: String?, logger: Logger) throws {
        let connection = try X11Connection(displayName: displayName)
        capturer = try ScreenCapturer(connection: connection, logger: logger)
        damage = try DamageMonitor(connection: connection)
        injector = try InputInjector(connection: connection)
        cursorMonitor = try? CursorMonitor(connection: connection)
        self.logger = logger
        let screen = connection.screen
        let method = capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage"
        logger.notice("sharing X display \(connection.displayName) (\(screen.width)x\(screen.height), capture via \(method), XDamage, XTest)")
    }

    func capture() async throws -> ScreenCapture {
        try collectDamage()
        let hints = firstCapture ? nil : pendingHints
        firstCapture = false
        pendingHints = []
        let image = try capturer.captureScreen()
        let captured = WireClock.monotonicMicros()
        return ScreenCapture(pixels: PixelBuffer(width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                                 bytes: image.pixels),
                             hints: hints, captureMicros: captured)
    }

    func waitForChange(timeout: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            do {
                try collectDamage()
            } catch {
                logger.warning("XDamage failed: \(error)")
                return
            }
            if !pendingHints.isEmpty { return }
            // Polling the connection's event queue is cheap; a short sleep keeps latency low
            // without a thread blocked in poll(2).
            try? await Task.sleep(for: min(.milliseconds(4), deadline - clock.now))
        }
    }

    func cursor() async throws -> CursorState? {
        guard let cursorMonitor else { return nil }
        if let image = try cursorMonitor.changedImage() ?? (shape == nil ? cursorMonitor.currentImage() : nil),
           image.width <= WireLimits.maxCursorSide, image.height <= WireLimits.maxCursorSide {
            shape = CursorShape(shapeID: image.serial, width: UInt16(image.width), height: UInt16(image.height),
                                hotX: UInt16(image.hotspotX), hotY: UInt16(image.hotspotY), rgba: image.rgba)
        }
        guard let shape else { return nil }
        let position = try cursorMonitor.pointerPosition()
        return CursorState(x: Int32(position.x), y: Int32(position.y), shape: shape)
    }

    private func collectDamage() throws {
        pendingHints += try damage.pendingDamage().map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }

    func inject(_ event: InputEvent) async throws {
        switch event {
        case .pointerMove(let x, let y):
            try injector.movePointer(x: Int(x), y: Int(y))
        case .button(let number, let pressed, let x, let y):
            try injector.movePointer(x: Int(x), y: Int(y))
            try injector.button(Int(number), pressed: pressed)
        case .scroll(let dx, let dy, let x, let y):
            try injector.movePointer(x: Int(x), y: Int(y))
            try injector.scroll(down: Int(dy), right: Int(dx))
        case .key(let keysym, let pressed, let modifiers):
            try injector.key(keysym, pressed: pressed, modifiers: Self.x11Modifiers(modifiers))
        case .text(let text):
            try injector.typeText(text)
        }
    }

    func releaseAll() async {
        do {
            try injector.releaseAll()
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
