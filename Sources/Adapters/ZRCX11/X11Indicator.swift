internal import CXCB
internal import Glibc
public import ZRCProtocol

/// A small always-on-top window of the host's own on the shared screen, saying who is connected,
/// and the key combinations the person at the host ends sessions (or answers a request) with.
///
/// An override-redirect window (no window manager moves, hides or decorates it), raised again
/// whenever another window covers it, drawn with the server's built-in `fixed` font; the
/// combinations are passive grabs on the root window, so they work whatever has the focus.
/// Controllers see the window too: it is part of the screen they watch.
///
/// No thread of its own: the owner waits on `fileDescriptor` and calls `processEvents()`.
/// Not Sendable: one task or actor drives it.
public final class X11Indicator {
    public enum Event: Sendable, Equatable {
        /// Combination number `index` (as given to `grab`) was pressed.
        case combination(Int)
    }

    /// The window's title, which tests and window lists find it by.
    public static let title = "ZRC session indicator"

    public let connection: X11Connection
    private let window: UInt32
    private let gc: UInt32
    private let charWidth: Int
    private let ascent: Int
    private let lineHeight: Int
    private var lines: [String] = []
    private var shown = false
    /// Grabbed (keycode, modifier mask) pairs, by combination index.
    private var grabs: [(index: Int, keycode: UInt8, modifiers: UInt16)] = []

    /// Opens its own connection to `displayName` (`cookie` as for `X11Connection`).
    public init(displayName: String?, cookie: [UInt8]? = nil) throws(X11Error) {
        let connection = try X11Connection(displayName: displayName, cookie: cookie)
        let raw = connection.handle.raw
        let screen = connection.screen
        let font = xcb_generate_id(raw), window = xcb_generate_id(raw), gc = xcb_generate_id(raw)
        guard ![font, window, gc].contains(UInt32.max) else {
            throw X11Error(.connectionLost, "cannot allocate an X resource id: \(connection.handle.failure ?? "the connection is broken")")
        }
        let fontName = "fixed"
        try checkXCBRequest(on: connection.handle, request: "OpenFont fixed",
                            xcb_open_font_checked(raw, font, UInt16(fontName.utf8.count), fontName))
        let metrics = try withXCBReply(on: connection.handle, request: "QueryFont fixed", { xcb_query_font_reply(raw, xcb_query_font(raw, font), $0) }) {
            (width: Int($0.pointee.max_bounds.character_width), ascent: Int($0.pointee.font_ascent), descent: Int($0.pointee.font_descent))
        }
        // On a TrueColor screen a dark red no application uses for itself; elsewhere black.
        let background: UInt32 = screen.isBGRX ? 0x8B_1A1A : 0
        let foreground: UInt32 = screen.isBGRX ? 0xFF_FFFF : 1
        // Value list in mask-bit order: back pixel, border pixel, override redirect, event mask.
        let values: [UInt32] = [background, foreground, 1,
                                XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_VISIBILITY_CHANGE.rawValue]
        try checkXCBRequest(on: connection.handle, request: "CreateWindow",
                            xcb_create_window_checked(raw, UInt8(XCB_COPY_FROM_PARENT), window, screen.rootWindow, 0, 0, 1, 1, 2,
                                                      UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), UInt32(XCB_COPY_FROM_PARENT),
                                                      XCB_CW_BACK_PIXEL.rawValue | XCB_CW_BORDER_PIXEL.rawValue
                                                          | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue, values))
        let title = Self.title
        xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_STRING.rawValue, 8,
                            UInt32(title.utf8.count), title)
        let gcValues: [UInt32] = [foreground, background, font]
        try checkXCBRequest(on: connection.handle, request: "CreateGC",
                            xcb_create_gc_checked(raw, gc, window, XCB_GC_FOREGROUND.rawValue | XCB_GC_BACKGROUND.rawValue | XCB_GC_FONT.rawValue,
                                                  gcValues))
        xcb_close_font(raw, font)
        // Key presses of the grabs arrive on the root window.
        let rootEvents: [UInt32] = [XCB_EVENT_MASK_KEY_PRESS.rawValue]
        _ = xcb_change_window_attributes(raw, screen.rootWindow, XCB_CW_EVENT_MASK.rawValue, rootEvents)
        xcb_flush(raw)
        self.connection = connection
        self.window = window
        self.gc = gc
        charWidth = max(1, metrics.width)
        ascent = metrics.ascent
        lineHeight = metrics.ascent + metrics.descent + 2
    }

    deinit {
        let raw = connection.handle.raw
        for grab in grabs { xcb_ungrab_key(raw, grab.keycode, connection.screen.rootWindow, grab.modifiers) }
        xcb_free_gc(raw, gc)
        xcb_destroy_window(raw, window)
        xcb_flush(raw)
    }

    public var fileDescriptor: Int32 { xcb_get_file_descriptor(connection.handle.raw) }

    /// Grabs `combination` on the root window as number `index`, also with Caps Lock and Num Lock
    /// on (they are modifiers to X). Fails when the key has no keycode or another client holds
    /// the combination.
    public func grab(_ combination: KeyCombo, index: Int) throws(X11Error) {
        let raw = connection.handle.raw
        let mapping = try KeyboardMapping.read(from: connection)
        guard let keycode = mapping.keycode(for: combination.keysym)?.keycode else {
            throw X11Error(.requestFailed, "the keyboard has no key for keysym 0x\(String(combination.keysym, radix: 16))")
        }
        var mask: UInt16 = 0
        if combination.modifiers.contains(.shift) { mask |= UInt16(XCB_MOD_MASK_SHIFT.rawValue) }
        if combination.modifiers.contains(.control) { mask |= UInt16(XCB_MOD_MASK_CONTROL.rawValue) }
        if combination.modifiers.contains(.alt) { mask |= UInt16(XCB_MOD_MASK_1.rawValue) }
        if combination.modifiers.contains(.super) { mask |= UInt16(XCB_MOD_MASK_4.rawValue) }
        let lock = UInt16(XCB_MOD_MASK_LOCK.rawValue), numLock = UInt16(XCB_MOD_MASK_2.rawValue)
        for extra in [0, lock, numLock, lock | numLock] {
            try checkXCBRequest(on: connection.handle, request: "GrabKey",
                                xcb_grab_key_checked(raw, 1, connection.screen.rootWindow, mask | extra, keycode,
                                                     UInt8(XCB_GRAB_MODE_ASYNC.rawValue), UInt8(XCB_GRAB_MODE_ASYNC.rawValue)))
            grabs.append((index, keycode, mask | extra))
        }
    }

    /// Shows `lines` (cleaned to printable ASCII: the core font is Latin-1, and peer names must
    /// not reach anything else) at the top centre of the screen, above every other window; an
    /// empty list hides the window.
    public func show(_ text: [String]) {
        let raw = connection.handle.raw
        lines = text.map(Self.printable)
        guard !lines.isEmpty else {
            if shown { xcb_unmap_window(raw, window) }
            shown = false
            xcb_flush(raw)
            return
        }
        let screen = connection.screen
        let padding = 6
        let width = min(screen.width - 4, (lines.map(\.count).max() ?? 0) * charWidth + 2 * padding)
        let height = lines.count * lineHeight + 2 * padding
        let x = max(0, (screen.width - width) / 2)
        // Value list in mask-bit order: x, y, width, height, stack mode.
        let values: [UInt32] = [UInt32(x), 0, UInt32(max(1, width)), UInt32(max(1, height)), XCB_STACK_MODE_ABOVE.rawValue]
        xcb_configure_window(raw, window, UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
                                                 | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue), values)
        if !shown { xcb_map_window(raw, window) }
        shown = true
        draw()
        xcb_flush(raw)
    }

    /// Handles what the server sent; returns the combinations pressed.
    public func processEvents() throws(X11Error) -> [Event] {
        let raw = connection.handle.raw
        var events: [Event] = []
        var handled = 0
        while handled < 256, let event = xcb_poll_for_event(raw) {
            defer { free(event) }
            handled += 1
            switch Int32(event.pointee.response_type & 0x7F) {
            case XCB_EXPOSE:
                draw()
            case XCB_VISIBILITY_NOTIFY:
                // Covered by another override-redirect window: back on top.
                if shown {
                    let above: [UInt32] = [XCB_STACK_MODE_ABOVE.rawValue]
                    xcb_configure_window(raw, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), above)
                }
            case XCB_KEY_PRESS:
                let press = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
                // Events a client sent with SendEvent (anyone can) carry the high bit: ignored.
                guard event.pointee.response_type & 0x80 == 0 else { continue }
                let state = press.state & ~UInt16(XCB_MOD_MASK_LOCK.rawValue | XCB_MOD_MASK_2.rawValue)
                if let grab = grabs.first(where: { $0.keycode == press.detail && ($0.modifiers & ~UInt16(XCB_MOD_MASK_LOCK.rawValue | XCB_MOD_MASK_2.rawValue)) == state }) {
                    events.append(.combination(grab.index))
                }
            default:
                break
            }
        }
        if let failure = connection.handle.failure { throw X11Error(.connectionLost, "the indicator's X connection broke: \(failure)") }
        xcb_flush(raw)
        return events
    }

    private func draw() {
        guard shown else { return }
        let raw = connection.handle.raw
        xcb_clear_area(raw, 0, window, 0, 0, 0, 0)
        for (index, line) in lines.enumerated() {
            let bytes = Array(line.utf8.prefix(255))
            xcb_image_text_8(raw, UInt8(bytes.count), window, gc, 6, Int16(6 + ascent + index * lineHeight), bytes.map { CChar(bitPattern: $0) })
        }
    }

    /// Printable ASCII only: anything else becomes `?`, and a line is at most 200 characters.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map { (0x20...0x7E).contains($0.value) ? $0 : "?" }))
    }
}
