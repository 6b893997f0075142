internal import CXCB
internal import Glibc
public import ZRCProtocol

/// An ordinary X client that paints known pictures into a full-screen window of its own, the way
/// an application would: the benchmark's workloads and the tests' known content. It is not part
/// of the host; it stands in for the user's applications.
///
/// A picture is uploaded once into a server-side pixmap, after which every update is a cheap
/// CopyArea or fill request, so the painter costs the X server's drawing time, not the client's.
///
/// Not Sendable: use it from one thread.
public final class X11Painter {
    public let connection: X11Connection
    public let width: Int
    public let height: Int
    let window: UInt32
    private let gc: UInt32
    private var picture: (pixmap: UInt32, width: Int, height: Int)?

    /// Opens its own connection and maps a borderless window covering the whole screen.
    public init(displayName: String?) throws(X11Error) {
        let connection = try X11Connection(displayName: displayName)
        guard connection.screen.isBGRX else {
            throw X11Error(.unsupportedScreen, "the painter needs a 24-bit TrueColor screen (BGRX)")
        }
        let raw = connection.handle.raw
        let ids = (xcb_generate_id(raw), xcb_generate_id(raw))
        guard ids.0 != UInt32.max, ids.1 != UInt32.max else {
            throw X11Error(.connectionLost, "cannot allocate an X resource id: \(connection.handle.failure ?? "the connection is broken")")
        }
        let screen = connection.screen
        // Value list in mask-bit order: CW_BACK_PIXEL (black), CW_OVERRIDE_REDIRECT (no window
        // manager moves or decorates it).
        let values: [UInt32] = [0, 1]
        try checkXCBRequest(on: connection.handle, request: "CreateWindow",
                            xcb_create_window_checked(raw, UInt8(XCB_COPY_FROM_PARENT), ids.0, screen.rootWindow, 0, 0,
                                                      UInt16(screen.width), UInt16(screen.height), 0,
                                                      UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), UInt32(XCB_COPY_FROM_PARENT),
                                                      XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue, values))
        try checkXCBRequest(on: connection.handle, request: "CreateGC", xcb_create_gc_checked(raw, ids.1, ids.0, 0, nil))
        try checkXCBRequest(on: connection.handle, request: "MapWindow", xcb_map_window_checked(raw, ids.0))
        self.connection = connection
        width = screen.width
        height = screen.height
        window = ids.0
        gc = ids.1
    }

    deinit {
        let raw = connection.handle.raw
        if let picture { xcb_free_pixmap(raw, picture.pixmap) }
        xcb_free_gc(raw, gc)
        xcb_destroy_window(raw, window)
        xcb_flush(raw)
    }

    /// Uploads a BGRX picture (`width × height`, tightly packed) to the server, replacing the last.
    public func loadPicture(_ bgrx: [UInt8], width: Int, height: Int) throws(X11Error) {
        guard width > 0, height > 0, width <= 32767, height <= 32767, bgrx.count == width * height * 4 else {
            throw X11Error(.invalidRectangle, "a \(width)x\(height) picture needs \(max(0, width * height * 4)) bytes, got \(bgrx.count)")
        }
        let raw = connection.handle.raw
        let pixmap = xcb_generate_id(raw)
        guard pixmap != UInt32.max else { throw X11Error(.connectionLost, "cannot allocate an X resource id") }
        try checkXCBRequest(on: connection.handle, request: "CreatePixmap of \(width)x\(height)",
                            xcb_create_pixmap_checked(raw, UInt8(connection.screen.depth), pixmap, window, UInt16(width), UInt16(height)))
        // PutImage is limited by the server's maximum request length: send bands of rows.
        let maximumBytes = min(Int(xcb_get_maximum_request_length(raw)) * 4 - 64, 4 << 20)
        let rowsPerBand = max(1, maximumBytes / (width * 4))
        var row = 0
        while row < height {
            let rows = min(rowsPerBand, height - row)
            let start = row * width * 4
            bgrx.withUnsafeBufferPointer { pixels in
                _ = xcb_put_image(raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), pixmap, gc, UInt16(width), UInt16(rows), 0,
                                  Int16(row), 0, UInt8(connection.screen.depth), UInt32(rows * width * 4), pixels.baseAddress! + start)
            }
            row += rows
        }
        if let old = picture { xcb_free_pixmap(raw, old.pixmap) }
        picture = (pixmap, width, height)
        try sync()
    }

    /// Shows the loaded picture's area starting at (`sourceX`, `sourceY`) in `rect` of the screen.
    public func show(pictureFrom sourceX: Int, _ sourceY: Int, in rect: PixelRect) throws(X11Error) {
        guard let picture else { throw X11Error(.invalidRectangle, "no picture loaded") }
        guard rect.fits(screenWidth: width, screenHeight: height), sourceX >= 0, sourceY >= 0,
              sourceX + rect.width <= picture.width, sourceY + rect.height <= picture.height else {
            throw X11Error(.invalidRectangle, "cannot show \(rect) from \(sourceX),\(sourceY) of a \(picture.width)x\(picture.height) picture")
        }
        xcb_copy_area(connection.handle.raw, picture.pixmap, window, gc, Int16(sourceX), Int16(sourceY), Int16(rect.x), Int16(rect.y),
                      UInt16(rect.width), UInt16(rect.height))
    }

    /// Fills `rect` with one colour (0xRRGGBB).
    public func fill(_ rect: PixelRect, rgb: UInt32) throws(X11Error) {
        guard rect.fits(screenWidth: width, screenHeight: height) else {
            throw X11Error(.invalidRectangle, "cannot fill \(rect) on a \(width)x\(height) screen")
        }
        let raw = connection.handle.raw
        var foreground = rgb & 0xFF_FFFF
        xcb_change_gc(raw, gc, XCB_GC_FOREGROUND.rawValue, &foreground)
        var box = xcb_rectangle_t(x: Int16(rect.x), y: Int16(rect.y), width: UInt16(rect.width), height: UInt16(rect.height))
        xcb_poly_fill_rectangle(raw, window, gc, 1, &box)
    }

    /// A round trip: everything requested so far has been drawn when this returns.
    public func sync() throws(X11Error) {
        try withXCBReply(on: connection.handle, request: "GetInputFocus (sync)", { error in
            xcb_get_input_focus_reply(connection.handle.raw, xcb_get_input_focus(connection.handle.raw), error)
        }) { _ throws(X11Error) in }
    }
}
