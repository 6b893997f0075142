internal import CXCB

/// The cursor, which screen captures do not contain: its shape through XFIXES GetCursorImage and
/// the pointer position through core QueryPointer, kept apart so the host can send the shape once
/// per change and the position as often as it moves.
///
/// Polled rather than event-driven: XFIXES cursor notifications would arrive on the connection's
/// event queue, which `DamageMonitor` owns. A poll is one round trip; `changedImage()` transfers
/// the image each time (a few kilobytes for ordinary cursors) and reports it only when the serial
/// differs from the last one it returned.
///
/// Not Sendable: it remembers the last serial. Keep it in one task or actor.
public final class CursorMonitor {
    public let connection: X11Connection
    private var lastSerial: UInt32?

    /// - Throws: `.extensionMissing` without XFIXES 2.
    public init(connection: X11Connection) throws(X11Error) {
        try ExtensionVersion.announceXFixes(on: connection)
        self.connection = connection
    }

    /// The current cursor image.
    public func currentImage() throws(X11Error) -> CursorImage {
        let raw = connection.handle.raw
        let image = try withXCBReply(on: connection.handle, request: "XFIXES GetCursorImage", { error in
            xcb_xfixes_get_cursor_image_reply(raw, xcb_xfixes_get_cursor_image(raw), error)
        }) { (reply) throws(X11Error) -> CursorImage in
            let r = reply.pointee
            let count = Int(xcb_xfixes_get_cursor_image_cursor_image_length(reply))
            guard count == Int(r.width) * Int(r.height), let pixels = xcb_xfixes_get_cursor_image_cursor_image(reply) else {
                throw X11Error(.requestFailed, "XFIXES GetCursorImage returned \(count) pixels for a \(r.width)x\(r.height) cursor")
            }
            return CursorImage(width: Int(r.width), height: Int(r.height), hotspotX: Int(r.xhot), hotspotY: Int(r.yhot),
                               serial: r.cursor_serial, premultipliedARGB: UnsafeBufferPointer(start: pixels, count: count))
        }
        lastSerial = image.serial
        return image
    }

    /// The cursor image if its serial differs from the one last returned, nil when unchanged.
    public func changedImage() throws(X11Error) -> CursorImage? {
        let previous = lastSerial
        let image = try currentImage()
        return image.serial == previous ? nil : image
    }

    /// The pointer position on the root window.
    public func pointerPosition() throws(X11Error) -> PointerPosition {
        let raw = connection.handle.raw
        return try withXCBReply(on: connection.handle, request: "QueryPointer", { error in
            xcb_query_pointer_reply(raw, xcb_query_pointer(raw, connection.screen.rootWindow), error)
        }) { reply in PointerPosition(x: Int(reply.pointee.root_x), y: Int(reply.pointee.root_y)) }
    }
}
