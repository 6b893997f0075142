internal import CXCB
import Foundation
import Testing

/// An X client that does to the pointer what applications do: defines ARGB cursors of any size
/// and hotspot (RENDER CreateCursor), blank ones, animated ones (RENDER CreateAnimCursor), and
/// hides it outright (XFIXES HideCursor). Its cursors are set on the root window, so they show
/// wherever no other window defines its own. Closing the client undoes all of it.
public final class CursorTestClient {
    let raw: OpaquePointer
    let root: UInt32
    let argbFormat: UInt32

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        raw = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(raw) == 0, let screen = xcb_setup_roots_iterator(xcb_get_setup(raw)).data?.pointee else {
            xcb_disconnect(raw)
            throw TestFailure("cursor client cannot connect to \(display)")
        }
        root = screen.root
        // Both extensions must be announced before use.
        free(xcb_render_query_version_reply(raw, xcb_render_query_version(raw, 0, 11), nil))
        free(xcb_xfixes_query_version_reply(raw, xcb_xfixes_query_version(raw, 4, 0), nil))
        guard let format = Self.findARGB32(raw) else {
            xcb_disconnect(raw)
            throw TestFailure("the X server at \(display) has no 32-bit ARGB picture format")
        }
        argbFormat = format
    }

    deinit { xcb_disconnect(raw) }

    /// Defines a cursor of `width` × `height` pixels, every pixel `argb` (straight 0xAARRGGBB).
    public func setCursor(width: Int, height: Int, hotX: Int, hotY: Int, argb: UInt32) throws {
        let cursor = try makeCursor(width: width, height: height, hotX: hotX, hotY: hotY, argb: argb)
        try define(cursor)
    }

    /// Defines an animated cursor: each frame a solid square of one colour, `delayMillis` apart.
    public func setAnimatedCursor(side: Int, colours: [UInt32], delayMillis: UInt32) throws {
        let frames = try colours.map { try makeCursor(width: side, height: side, hotX: 0, hotY: 0, argb: $0) }
        let elements = frames.map { xcb_render_animcursorelt_t(cursor: $0, delay: delayMillis) }
        let animated = xcb_generate_id(raw)
        try check(xcb_render_create_anim_cursor_checked(raw, animated, UInt32(elements.count), elements), "RENDER CreateAnimCursor")
        try define(animated)
    }

    /// XFIXES HideCursor: the pointer is invisible while this client lives (or until `show`).
    public func hide() throws {
        try check(xcb_xfixes_hide_cursor_checked(raw, root), "XFIXES HideCursor")
    }

    public func show() throws {
        try check(xcb_xfixes_show_cursor_checked(raw, root), "XFIXES ShowCursor")
    }

    private func define(_ cursor: UInt32) throws {
        var value = cursor
        try check(xcb_change_window_attributes_checked(raw, root, XCB_CW_CURSOR.rawValue, &value), "ChangeWindowAttributes(cursor)")
    }

    private func makeCursor(width: Int, height: Int, hotX: Int, hotY: Int, argb: UInt32) throws -> UInt32 {
        let pixmap = xcb_generate_id(raw)
        try check(xcb_create_pixmap_checked(raw, 32, pixmap, root, UInt16(width), UInt16(height)), "CreatePixmap")
        defer { xcb_free_pixmap(raw, pixmap) }
        let gc = xcb_generate_id(raw)
        try check(xcb_create_gc_checked(raw, gc, pixmap, 0, nil), "CreateGC")
        defer { xcb_free_gc(raw, gc) }
        // RENDER cursors are premultiplied.
        let alpha = argb >> 24
        func premultiplied(_ shift: UInt32) -> UInt32 { ((argb >> shift & 0xFF) * alpha + 127) / 255 << shift }
        let pixel = alpha << 24 | premultiplied(16) | premultiplied(8) | premultiplied(0)
        // In bands, so no single request exceeds the core request size limit.
        let rowsPerBand = max(1, 32_000 / width)
        var row = 0
        while row < height {
            let rows = min(rowsPerBand, height - row)
            let band = [UInt32](repeating: pixel, count: width * rows)
            try band.withUnsafeBytes { bytes in
                try check(xcb_put_image_checked(raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), pixmap, gc, UInt16(width), UInt16(rows),
                                                0, Int16(row), 0, 32, UInt32(bytes.count), bytes.bindMemory(to: UInt8.self).baseAddress),
                          "PutImage")
            }
            row += rows
        }
        let picture = xcb_generate_id(raw)
        try check(xcb_render_create_picture_checked(raw, picture, pixmap, argbFormat, 0, nil), "RENDER CreatePicture")
        defer { xcb_render_free_picture(raw, picture) }
        let cursor = xcb_generate_id(raw)
        try check(xcb_render_create_cursor_checked(raw, cursor, picture, UInt16(hotX), UInt16(hotY)), "RENDER CreateCursor")
        return cursor
    }

    private func check(_ cookie: xcb_void_cookie_t, _ request: String) throws {
        if let error = xcb_request_check(raw, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw TestFailure("\(request) failed with X error \(code)")
        }
    }

    private static func findARGB32(_ raw: OpaquePointer) -> UInt32? {
        guard let reply = xcb_render_query_pict_formats_reply(raw, xcb_render_query_pict_formats(raw), nil) else { return nil }
        defer { free(reply) }
        var iterator = xcb_render_query_pict_formats_formats_iterator(reply)
        while iterator.rem > 0 {
            let info = iterator.data.pointee
            let d = info.direct
            if info.type == UInt8(XCB_RENDER_PICT_TYPE_DIRECT.rawValue), info.depth == 32, d.alpha_shift == 24, d.alpha_mask == 0xFF,
               d.red_shift == 16, d.green_shift == 8, d.blue_shift == 0 {
                return info.id
            }
            xcb_render_pictforminfo_next(&iterator)
        }
        return nil
    }
}
