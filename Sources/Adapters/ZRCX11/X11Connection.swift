internal import CXCB
internal import Glibc

/// A connection to an X display, with the facts about its screen that capture and input need.
///
/// Sendable: everything is fixed at init, and the underlying libxcb connection may be used from
/// several threads (see `XCBConnectionHandle`), so a capturer and an input injector can share one.
public final class X11Connection: Sendable {
    /// The display name as given, or `$DISPLAY` when none was.
    public let displayName: String
    public let screen: X11ScreenInfo
    /// The extensions this server offers, among those ZRC uses.
    public let extensions: Set<X11Extension>

    let handle: XCBConnectionHandle

    /// Connects to `displayName`, or to `$DISPLAY` when it is nil. `cookie`: an MIT-MAGIC-COOKIE-1
    /// to present (a display this process started itself), instead of looking one up through
    /// `$XAUTHORITY` — so nobody has to change this process's environment after threads exist.
    public init(displayName: String? = nil, cookie: [UInt8]? = nil) throws(X11Error) {
        let shownName = displayName ?? ProcessEnvironment.value(of: "DISPLAY") ?? "(DISPLAY is not set)"
        self.displayName = shownName
        var screenNumber: Int32 = 0
        // xcb_connect never returns NULL: failures come back as a connection in an error state,
        // which must still be freed, so it is owned before it is checked.
        let connection: OpaquePointer
        if let cookie {
            var name = Array("MIT-MAGIC-COOKIE-1".utf8CString)
            var data = cookie.map { CChar(bitPattern: $0) }
            connection = name.withUnsafeMutableBufferPointer { name in
                data.withUnsafeMutableBufferPointer { data in
                    var auth = xcb_auth_info_t(namelen: Int32(name.count - 1), name: name.baseAddress, datalen: Int32(data.count),
                                               data: data.baseAddress)
                    return xcb_connect_to_display_with_auth_info(displayName, &auth, &screenNumber)
                }
            }
        } else {
            connection = xcb_connect(displayName, &screenNumber)
        }
        let handle = XCBConnectionHandle(connection)
        if let failure = handle.failure {
            throw X11Error(.cannotConnect, "cannot connect to X display \"\(shownName)\": \(failure)")
        }
        self.handle = handle
        screen = try Self.readScreen(handle, number: Int(screenNumber), displayName: shownName)
        extensions = Self.queryExtensions(handle)
    }

    /// Whether the server offers `ext`.
    public func has(_ ext: X11Extension) -> Bool { extensions.contains(ext) }

    /// Finds screen `number` in the setup data and works out its pixel layout.
    private static func readScreen(_ handle: XCBConnectionHandle, number: Int, displayName: String) throws(X11Error) -> X11ScreenInfo {
        // Non-nil on a connection without an error, which the caller has just checked; the setup
        // data belongs to the connection and is never freed by us.
        let setup = xcb_get_setup(handle.raw)!
        var roots = xcb_setup_roots_iterator(setup)
        var index = 0
        while roots.rem > 0 && index < number {
            xcb_screen_next(&roots)
            index += 1
        }
        guard roots.rem > 0, let screen = roots.data?.pointee else {
            throw X11Error(.cannotConnect, "X display \"\(displayName)\" has no screen \(number)")
        }
        let depth = Int(screen.root_depth)
        let bitsPerPixel = pixmapBitsPerPixel(setup, depth: screen.root_depth)
        let visual = rootVisual(of: roots.data!, id: screen.root_visual)
        let isBGRX = bitsPerPixel == 32
            && setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue)
            && visual.map { $0._class == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue)
                && $0.red_mask == 0xFF0000 && $0.green_mask == 0x00FF00 && $0.blue_mask == 0x0000FF } == true
        return X11ScreenInfo(number: number, width: Int(screen.width_in_pixels), height: Int(screen.height_in_pixels),
                             depth: depth, bitsPerPixel: bitsPerPixel, isBGRX: isBGRX, rootWindow: screen.root)
    }

    private static func pixmapBitsPerPixel(_ setup: UnsafePointer<xcb_setup_t>, depth: UInt8) -> Int {
        guard let formats = xcb_setup_pixmap_formats(setup) else { return 0 }
        let count = Int(xcb_setup_pixmap_formats_length(setup))
        for format in UnsafeBufferPointer(start: formats, count: count) where format.depth == depth {
            return Int(format.bits_per_pixel)
        }
        return 0
    }

    private static func rootVisual(of screen: UnsafeMutablePointer<xcb_screen_t>, id: xcb_visualid_t) -> xcb_visualtype_t? {
        var depths = xcb_screen_allowed_depths_iterator(screen)
        while depths.rem > 0 {
            var visuals = xcb_depth_visuals_iterator(depths.data)
            while visuals.rem > 0 {
                if let visual = visuals.data?.pointee, visual.visual_id == id { return visual }
                xcb_visualtype_next(&visuals)
            }
            xcb_depth_next(&depths)
        }
        return nil
    }

    /// Asks for every extension at once (one round trip in total rather than one each).
    private static func queryExtensions(_ handle: XCBConnectionHandle) -> Set<X11Extension> {
        for ext in X11Extension.allCases { xcb_prefetch_extension_data(handle.raw, ext.xcbID) }
        // The replies are cached inside the connection and must not be freed. A nil reply means
        // the connection broke, which the next request reports.
        return Set(X11Extension.allCases.filter { xcb_get_extension_data(handle.raw, $0.xcbID)?.pointee.present == 1 })
    }
}
