internal import CXCB
internal import Glibc
public import ZRCProtocol
import ZRCSystem

/// Reports which areas of the screen changed, from a DAMAGE object on the root window, so a
/// static screen costs no capture at all.
///
/// Level NonEmpty: the server sends one event when the damaged region goes from empty to
/// non-empty, however much is drawn after that; `pendingDamage()` then moves the whole region
/// into an XFIXES region with Subtract (which empties the damage, so it never accumulates and the
/// next drawing raises a new event) and fetches its rectangles. The server has already merged
/// overlapping damage, so the rectangles are disjoint, and a burst of drawing costs one event and
/// one round trip rather than an event per primitive (RawRectangles) or a Subtract per event
/// (DeltaRectangles). Nothing drawn between the event and the Subtract is lost: it is either in
/// the fetched region or raises the next event.
///
/// The first report after creation is the whole screen: the server starts a window's DAMAGE
/// object fully damaged, which is the host's cue for its first full frame.
///
/// Screen changes: where the server has RANDR, the monitor also selects ScreenChangeNotify and
/// RRNotify (CRTC and output changes) on the root window, and remembers that one arrived
/// (`takeLayoutChange()`), so a resize is noticed with the event that announces it rather than
/// by the next poll — after which reads of the old size would fail.
///
/// Events: this monitor reads its connection's event queue and drops every event that is not its
/// own. Give it the connection the capturer and the injector use (they never wait for events),
/// and no second reader. No thread of its own: the owner calls `pendingDamage()` when it likes,
/// or `waitForDamage(timeout:)`, or waits on `fileDescriptor` in its own poll loop.
///
/// Not Sendable: call it from one task or actor.
public final class DamageMonitor {
    public let connection: X11Connection
    private let damage: UInt32
    private let parts: UInt32
    private let damageNotify: UInt8
    /// RANDR's first event code, when the server has RANDR.
    private let randrEventBase: UInt8?
    private var layoutChanged = false

    /// - Throws: `.extensionMissing` without DAMAGE or XFIXES 2.
    public init(connection: X11Connection) throws(X11Error) {
        try ExtensionVersion.announceDamage(on: connection)
        try ExtensionVersion.announceXFixes(on: connection)
        let raw = connection.handle.raw
        // Present, as announceDamage checked; the data is owned by the connection.
        damageNotify = xcb_get_extension_data(raw, zrc_xcb_damage_id())!.pointee.first_event + UInt8(XCB_DAMAGE_NOTIFY)
        let ids = (xcb_generate_id(raw), xcb_generate_id(raw))
        guard ids.0 != UInt32.max, ids.1 != UInt32.max else {
            throw X11Error(.connectionLost, "cannot allocate an X resource id: \(connection.handle.failure ?? "the connection is broken")")
        }
        try checkXCBRequest(on: connection.handle, request: "XFIXES CreateRegion",
                            xcb_xfixes_create_region_checked(raw, ids.1, 0, nil))
        do {
            try checkXCBRequest(on: connection.handle, request: "DAMAGE Create on the root window",
                                xcb_damage_create_checked(raw, ids.0, connection.screen.rootWindow,
                                                          UInt8(XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY.rawValue)))
        } catch {
            xcb_xfixes_destroy_region(raw, ids.1)
            xcb_flush(raw)
            throw error
        }
        self.connection = connection
        damage = ids.0
        parts = ids.1
        randrEventBase = Self.selectScreenChanges(on: connection)
    }

    /// Asks for RANDR's screen, CRTC and output change events; their first event code, or nil
    /// when the server has no usable RANDR (then the owner's periodic layout check is all there is).
    private static func selectScreenChanges(on connection: X11Connection) -> UInt8? {
        guard connection.has(.randr), (try? ExtensionVersion.randr(on: connection)) != nil else { return nil }
        let raw = connection.handle.raw
        let mask = XCB_RANDR_NOTIFY_MASK_SCREEN_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE.rawValue
            | XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE.rawValue
        do {
            try checkXCBRequest(on: connection.handle, request: "RANDR SelectInput",
                                xcb_randr_select_input_checked(raw, connection.screen.rootWindow, UInt16(mask)))
        } catch {
            return nil
        }
        return xcb_get_extension_data(raw, zrc_xcb_randr_id())?.pointee.first_event
    }

    /// Whether a RANDR change (screen size, CRTC, output) arrived since the last call.
    public func takeLayoutChange() -> Bool {
        defer { layoutChanged = false }
        return layoutChanged
    }

    deinit {
        let raw = connection.handle.raw
        xcb_damage_destroy(raw, damage)
        xcb_xfixes_destroy_region(raw, parts)
        xcb_flush(raw)
    }

    /// Readable when events may have arrived. Wait on it only after `pendingDamage()` returned
    /// nothing: libxcb may already have read an event off the socket (while waiting for some
    /// reply), and then the descriptor stays quiet although damage is pending.
    public var fileDescriptor: Int32 { xcb_get_file_descriptor(connection.handle.raw) }

    /// The areas damaged since the last call, in root coordinates; empty when nothing changed.
    /// Never blocks on the server unless there is damage (then one round trip).
    public func pendingDamage() throws(X11Error) -> [PixelRect] {
        let raw = connection.handle.raw
        var notified = false
        while let event = xcb_poll_for_event(raw) {
            let type = event.pointee.response_type & 0x7F
            if type == damageNotify {
                let notify = UnsafeRawPointer(event).load(as: xcb_damage_notify_event_t.self)
                notified = notified || notify.damage == damage
            } else if let base = randrEventBase,
                      type == base &+ UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || type == base &+ UInt8(XCB_RANDR_NOTIFY) {
                layoutChanged = true
            }
            free(event)
        }
        if let failure = connection.handle.failure {
            throw X11Error(.connectionLost, "the X connection broke while reading damage events: \(failure)")
        }
        guard notified else { return [] }
        try checkXCBRequest(on: connection.handle, request: "DAMAGE Subtract",
                            xcb_damage_subtract_checked(raw, damage, 0 /* None: take all */, parts))
        return try withXCBReply(on: connection.handle, request: "XFIXES FetchRegion", { error in
            xcb_xfixes_fetch_region_reply(raw, xcb_xfixes_fetch_region(raw, parts), error)
        }) { reply in
            let count = Int(xcb_xfixes_fetch_region_rectangles_length(reply))
            guard count > 0, let rects = xcb_xfixes_fetch_region_rectangles(reply) else { return [] }
            return UnsafeBufferPointer(start: rects, count: count).map {
                PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
            }
        }
    }

    /// Waits up to `timeout` for damage and returns it; empty when the time ran out first.
    public func waitForDamage(timeout: Duration) throws(X11Error) -> [PixelRect] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let damaged = try pendingDamage()
            let left = ContinuousClock.now.duration(to: deadline)
            if !damaged.isEmpty || left <= .zero { return damaged }
            var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            if poll(&poller, 1, milliseconds) < 0 && errno != EINTR {
                throw X11Error(.connectionLost, "poll on the X connection failed: \(SystemCall.describeErrno())")
            }
        }
    }
}
