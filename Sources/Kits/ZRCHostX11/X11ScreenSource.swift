import Foundation
public import Logging
public import ZRCFrames
public import ZRCHostKit
import ZRCNetworking
public import ZRCProtocol
import ZRCX11

/// The X11 screen as the host's `ScreenSource` and `InputSink`, all on one XCB connection:
/// MIT-SHM capture (GetImage fallback), XDamage for what changed, XTest for input, XFixes for the
/// cursor, RandR for the monitor to share.
///
/// The source keeps a framebuffer of the shared area and reads from the X server only what
/// XDamage reported since the last read (tile-aligned, merged into few rectangles), so a typing-
/// sized change costs a few small reads instead of a full-screen copy, and no damage means no
/// read at all. XDamage over-reports (a redraw with identical pixels still counts); each viewer's
/// damage becomes its hints, and the tile compare confirms them. When the screen size changes
/// (RandR), the connection is rebuilt and the next capture has the new size: sessions carry on.
public actor X11ScreenSource: ScreenSource, InputSink {
    private let displayName: String?
    private let cookie: [UInt8]?
    private let monitorSelector: String?
    private let logger: Logger
    private var x11: Parts
    private var damage = DamageLedger()
    /// The shared area as last read; only `unread` areas may differ from the screen. Empty while
    /// nobody watches (from the start and after the last viewer left): the first capture sizes it
    /// and reads the whole area, so an idle host holds no copy of the screen (8 MB at 1080p).
    private var framebuffer = PixelBuffer(width: 0, height: 0)
    /// Counts the framebuffer's changes: a capture's `generation` (sessions share encodings by it).
    private var generation: UInt64 = 0
    private var unread: [PixelRect]?
    /// The cursor as last read (nil: hidden), once it has been read on this connection.
    private var shape: CursorShape??
    private var lastLayoutCheck = ContinuousClock.now
    /// Wakes `waitForChange` when another call on the connection took the damage event it sleeps for.
    private let wakeUp = SocketReadiness.WakeUp()

    /// Everything tied to one connection, rebuilt together after a screen-size change.
    private struct Parts {
        let connection: X11Connection
        let capturer: ScreenCapturer
        let damage: DamageMonitor
        let injector: InputInjector
        let cursor: CursorMonitor?
        /// The shared area in root-window coordinates.
        let area: PixelRect
        let layout: MonitorLayout
    }

    /// Connects to `displayName` (nil: `$DISPLAY`) and shares `monitor` (a RandR monitor name or
    /// index; nil: the whole screen).
    /// `cookie`: the display's MIT-MAGIC-COOKIE-1 when this process started it (`--virtual`).
    public init(displayName: String?, cookie: [UInt8]? = nil, monitor: String?, logger: Logger) throws {
        self.displayName = displayName
        self.cookie = cookie
        monitorSelector = monitor
        self.logger = logger
        x11 = try Self.connect(displayName: displayName, cookie: cookie, monitor: monitor, logger: logger)
    }

    /// The whole shared area in its own coordinates (what the framebuffer covers once read).
    private var sharedBounds: PixelRect { PixelRect(x: 0, y: 0, width: x11.area.width, height: x11.area.height) }

    /// "MIT-SHM" or "GetImage", for logs and benchmarks.
    public var captureMethod: String { Self.methodName(x11.capturer) }

    private static func methodName(_ capturer: ScreenCapturer) -> String { capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage" }

    /// The shared area's size.
    public var size: (width: Int, height: Int) { (x11.area.width, x11.area.height) }

    /// The area to share in `layout`: the whole screen, or the selected monitor's part of it
    /// (RandR monitors may extend past a screen that shrank).
    private static func sharedArea(in layout: MonitorLayout, monitor: String?) throws -> PixelRect {
        var area = layout.screenRect
        if let monitor {
            let info = try layout.monitor(matching: monitor)
            guard let clipped = info.rect.clipped(to: layout.screenRect) else {
                throw X11Error(.noSuchMonitor, "monitor \(info.name) (\(info.rect)) lies outside the \(layout.screenWidth)x\(layout.screenHeight) screen")
            }
            area = clipped
        }
        guard area.width <= WireLimits.maxScreenSide, area.height <= WireLimits.maxScreenSide,
              area.width * area.height <= WireLimits.maxScreenPixels else {
            throw X11Error(.unsupportedScreen, "the shared area (\(area.width)x\(area.height)) is larger than ZRC can send (\(WireLimits.maxScreenSide) pixels a side, \(WireLimits.maxScreenPixels) in all); share one monitor with --monitor")
        }
        return area
    }

    private static func connect(displayName: String?, cookie: [UInt8]?, monitor: String?, logger: Logger) throws -> Parts {
        let connection = try X11Connection(displayName: displayName, cookie: cookie)
        let layout = try MonitorLayout.read(from: connection)
        let area = try sharedArea(in: layout, monitor: monitor)
        let capturer = try ScreenCapturer(connection: connection, logger: logger)
        let parts = Parts(connection: connection, capturer: capturer, damage: try DamageMonitor(connection: connection),
                          injector: try InputInjector(connection: connection), cursor: try? CursorMonitor(connection: connection),
                          area: area, layout: layout)
        logger.notice("sharing X display \(connection.displayName), area \(area) of \(layout.screenWidth)x\(layout.screenHeight) (capture via \(methodName(capturer)), XDamage, XTest)")
        return parts
    }

    public func capture(for viewer: ScreenViewer) async throws -> ScreenCapture {
        try checkLayout(force: layoutChangePending)
        try collectDamage()
        do {
            try readUnread()
        } catch let error as X11Error where error.kind == .requestFailed {
            // The screen can shrink under a read: the server refuses it (BadMatch) before the
            // RANDR event that announces the change is read. Look, and read again at the new size.
            guard try checkLayout(force: true) else { throw error }
            try readUnread()
        }
        let captured = WireClock.monotonicMicros()
        return ScreenCapture(pixels: framebuffer, hints: damage.take(for: viewer), captureMicros: captured, generation: generation)
    }

    /// Brings the framebuffer up to date: the whole area after a (re)connect, else the damaged tiles.
    private func readUnread() throws {
        let area = x11.area
        guard let pending = unread else {
            generation += 1
            if framebuffer.width != area.width || framebuffer.height != area.height {
                framebuffer = PixelBuffer(width: area.width, height: area.height)
            }
            try read(framebuffer.bounds)
            unread = []
            return
        }
        guard !pending.isEmpty else { return }
        unread = []
        generation += 1
        let grid = TileGrid(width: framebuffer.width, height: framebuffer.height, tileSize: TileChangeDetector.defaultTileSize)
        var tiles = TileMask(grid: grid)
        tiles.insert(covering: pending)
        for rect in tiles.mergedRects() { try read(rect) }
    }

    /// Reads `rect` (shared-area coordinates) from the server straight into the framebuffer.
    private func read(_ rect: PixelRect) throws {
        let capturer = x11.capturer
        let source = PixelRect(x: x11.area.x + rect.x, y: x11.area.y + rect.y, width: rect.width, height: rect.height)
        let stride = framebuffer.bytesPerRow
        let offset = rect.y * stride + rect.x * PixelBuffer.bytesPerPixel
        try framebuffer.bytes.withUnsafeMutableBytes { raw in
            try capturer.capture(source, into: UnsafeMutableRawBufferPointer(rebasing: raw[offset...]), bytesPerRow: stride)
        }
    }

    public func waitForChange(for viewer: ScreenViewer, timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // At least one look, even with a zero timeout.
        while !Task.isCancelled {
            do {
                try collectDamage()
            } catch {
                // Without damage events, treat every wait as a possible change: read and compare all.
                logger.warning("XDamage failed: \(error)")
                unread = nil
                damage.record([sharedBounds], generation: generation + 1)
                try? await Task.sleep(for: timeout)
                return true
            }
            if damage.hasDamage(for: viewer) { return true }
            guard clock.now < deadline else { break }
            // Sleep until the X socket has data (a damage event) instead of polling. Other calls
            // on this connection made meanwhile (input, the cursor, another viewer) may read an
            // event into libxcb's queue without the socket staying readable: they look for
            // damage afterwards and wake this wait (`noticeQueuedDamage`); the 50 ms bound is a
            // last resort.
            // The monitor (and so its connection's descriptor) is held until the wait is over: a
            // screen change may reconnect meanwhile, and its descriptor must not close under the wait.
            let monitor = x11.damage
            await SocketReadiness.wait(fileDescriptor: monitor.fileDescriptor, timeout: min(.milliseconds(50), deadline - clock.now),
                                       wakeUp: wakeUp)
            withExtendedLifetime(monitor) {}
        }
        return damage.hasDamage(for: viewer)
    }

    public func skip(for viewer: ScreenViewer, through generation: UInt64) async {
        damage.skip(for: viewer, through: generation)
    }

    public func viewerLeft(_ viewer: ScreenViewer) async {
        damage.remove(viewer)
        // Nobody watching: the copy of the screen (8 MB at 1080p) goes back to the system, and
        // the next viewer's first capture reads the whole screen again, as after a reconnect.
        if damage.hasNoViewers {
            framebuffer = PixelBuffer(width: 0, height: 0)
            unread = nil
        }
    }

    /// A RANDR event arrived that the next capture must look at.
    private var layoutChangePending = false
    /// The layout as last read (monitors may change while the screen's size does not).
    private var latestLayout: MonitorLayout?

    /// The monitors within the shared area, in its pixels (RandR's order).
    public func monitors() -> [MonitorArea] {
        // A still screen captures nothing, so nothing else reads the layout: look (once a second).
        _ = try? checkLayout()
        let layout = latestLayout ?? x11.layout, area = x11.area
        return layout.monitors.compactMap { monitor in
            guard let part = monitor.rect.clipped(to: area), part.width <= Int(UInt16.max), part.height <= Int(UInt16.max) else { return nil }
            return MonitorArea(x: UInt16(part.x - area.x), y: UInt16(part.y - area.y), width: UInt16(part.width), height: UInt16(part.height),
                               isPrimary: monitor.isPrimary, name: String(monitor.name.prefix(64)))
        }
    }

    /// Re-reads the screen layout when RANDR announced a change (`force`), else about once a
    /// second (monitors defined with `xrandr --setmonitor` raise no event); when the screen size
    /// or the shared area changed, reconnects, so the next capture has the new size and sessions
    /// carry on. Returns whether it reconnected.
    @discardableResult
    private func checkLayout(force: Bool = false) throws -> Bool {
        guard force || ContinuousClock.now - lastLayoutCheck >= .seconds(1) else { return false }
        lastLayoutCheck = .now
        layoutChangePending = false
        let layout = try MonitorLayout.read(from: x11.connection)
        latestLayout = layout
        let area = try Self.sharedArea(in: layout, monitor: monitorSelector)
        guard layout.screenWidth != x11.layout.screenWidth || layout.screenHeight != x11.layout.screenHeight || area != x11.area
        else { return false }
        logger.notice("the screen changed to \(layout.screenWidth)x\(layout.screenHeight) (sharing \(area)); reconnecting to the display")
        try? x11.injector.releaseHeld()
        x11 = try Self.connect(displayName: displayName, cookie: cookie, monitor: monitorSelector, logger: logger)
        unread = nil
        damage.forgetAll()
        shape = nil
        // Waits on the old connection end now and look again, on the new one.
        wakeUp.fire()
        return true
    }

    /// After a call that may have read events into libxcb's queue (one with a reply): takes any
    /// damage among them and wakes a waiting `waitForChange`.
    private func noticeQueuedDamage() {
        if (try? collectDamage()) == true { wakeUp.fire() }
    }

    /// Damage in root coordinates, clipped to the shared area and moved into its coordinates.
    /// Whether there was any.
    @discardableResult
    private func collectDamage() throws -> Bool {
        let area = PixelRect(x: x11.area.x, y: x11.area.y, width: x11.area.width, height: x11.area.height)
        var fresh: [PixelRect] = []
        let damaged = try x11.damage.pendingDamage()
        if x11.damage.takeLayoutChange() {
            // Every viewer wakes and the next capture re-reads the layout.
            layoutChangePending = true
            fresh.append(sharedBounds)
        }
        for rect in damaged {
            let clipped = PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height).intersection(area)
            guard !clipped.isEmpty else { continue }
            fresh.append(PixelRect(x: clipped.x - area.x, y: clipped.y - area.y, width: clipped.width, height: clipped.height))
        }
        guard !fresh.isEmpty else { return false }
        // The next read shows it: generation + 1.
        damage.record(fresh, generation: generation + 1)
        if unread != nil {
            unread!.append(contentsOf: fresh)
            // Bounded: beyond a few hundred rectangles, read everything once.
            if unread!.count > 512 { unread = nil }
        }
        return true
    }

    public func cursor() async throws -> CursorState? {
        guard let monitor = x11.cursor else { return nil }
        defer { noticeQueuedDamage() }
        if let image = try monitor.changedImage() ?? (shape == nil ? monitor.currentImage() : nil) {
            shape = .some(CursorNormalizer.shape(from: image))
        }
        let position = try monitor.pointerPosition()
        let area = x11.area
        // Where the pointer is outside the shared area, the controller learns only that it is hidden.
        let inside = (area.x..<(area.x + area.width)).contains(position.x) && (area.y..<(area.y + area.height)).contains(position.y)
        let x = min(max(position.x - area.x, 0), area.width - 1)
        let y = min(max(position.y - area.y, 0), area.height - 1)
        return CursorState(x: Int32(x), y: Int32(y), shape: inside ? shape ?? nil : nil)
    }

    public func inject(_ event: InputEvent) async throws {
        defer { noticeQueuedDamage() }
        // The controller speaks in shared-area coordinates; XTest in root coordinates. Clamped
        // to the shared area, so input never reaches an unshared monitor.
        let area = x11.area
        func root(_ x: Int32, _ y: Int32) -> (x: Int, y: Int) {
            (area.x + min(max(Int(x), 0), area.width - 1), area.y + min(max(Int(y), 0), area.height - 1))
        }
        switch event {
        case .pointerMove(let x, let y):
            let point = root(x, y)
            try x11.injector.movePointer(x: point.x, y: point.y)
        case .button(let number, let pressed, let x, let y):
            let point = root(x, y)
            try x11.injector.movePointer(x: point.x, y: point.y)
            try x11.injector.button(Int(number), pressed: pressed)
        case .scroll(let horizontal, let vertical, let x, let y):
            let point = root(x, y)
            try x11.injector.movePointer(x: point.x, y: point.y)
            try x11.injector.scroll(down: Int(vertical), right: Int(horizontal))
        case .key(let keysym, let pressed, let modifiers):
            try x11.injector.key(keysym, pressed: pressed, modifiers: modifiers)
        case .text(let text):
            try x11.injector.typeText(text)
        }
    }

    /// A session ended: nothing it pressed stays pressed. Spare keycodes bound for its typing stay
    /// bound until clients have had time to read the keys (see `InputInjector`), then go.
    public func releaseAll() async {
        do {
            try x11.injector.releaseHeld()
        } catch {
            logger.warning("could not release held keys and buttons: \(error)")
        }
        scheduleSpareRestore()
    }

    private var spareRestoreScheduled = false

    private func scheduleSpareRestore() {
        guard !spareRestoreScheduled, !x11.injector.spareBindings.isEmpty else { return }
        spareRestoreScheduled = true
        Task { [weak self] in
            try? await Task.sleep(for: InputInjector.clientCatchUpTime)
            await self?.restoreIdleSpares()
        }
    }

    private func restoreIdleSpares() {
        spareRestoreScheduled = false
        do {
            if try x11.injector.restoreKeyboardMapping() { scheduleSpareRestore() }
        } catch {
            logger.warning("could not give spare keycodes back: \(error)")
        }
    }

}
