internal import CXCB
import Foundation

/// A window of random pixels (seeded) on an X display: the hardest picture to compress, which a
/// host sends as JPEG first and exactly only later. It stays while this object lives.
public final class NoiseWindow {
    let raw: OpaquePointer
    public let x: Int, y: Int, width: Int, height: Int

    public init(display: String, x: Int, y: Int, width: Int, height: Int, seed: UInt64) throws {
        var screenNumber: Int32 = 0
        raw = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(raw) == 0, let screen = xcb_setup_roots_iterator(xcb_get_setup(raw)).data?.pointee,
              screen.root_depth == 24 else {
            xcb_disconnect(raw)
            throw TestFailure("cannot draw noise on \(display) (no depth-24 screen)")
        }
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
        let window = xcb_generate_id(raw)
        // Override-redirect: placed exactly where asked, whatever window manager runs.
        let values: [UInt32] = [screen.black_pixel, 1, UInt32(XCB_EVENT_MASK_EXPOSURE.rawValue)]
        xcb_create_window(raw, UInt8(XCB_COPY_FROM_PARENT), window, screen.root, Int16(x), Int16(y), UInt16(width), UInt16(height), 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
                          XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue, values)
        xcb_map_window(raw, window)
        let gc = xcb_generate_id(raw)
        xcb_create_gc(raw, gc, window, 0, nil)
        // Wait for the first Expose: the window is on screen, so what is drawn now stays.
        xcb_flush(raw)
        let deadline = Date().addingTimeInterval(20)
        var exposed = false
        while !exposed, Date() < deadline {
            if let event = xcb_poll_for_event(raw) {
                exposed = event.pointee.response_type & 0x7F == UInt8(XCB_EXPOSE)
                free(event)
            } else {
                usleep(2000)
            }
        }
        guard exposed else {
            xcb_disconnect(raw)
            throw TestFailure("the noise window was not exposed within 20 s")
        }
        var state = seed
        func next() -> UInt8 {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
        // In bands that fit one request each.
        let bandRows = 32
        for top in stride(from: 0, to: height, by: bandRows) {
            let rows = min(bandRows, height - top)
            var pixels = [UInt8](repeating: 0, count: width * rows * 4)
            for index in stride(from: 0, to: pixels.count, by: 4) {
                pixels[index] = next()
                pixels[index + 1] = next()
                pixels[index + 2] = next()
            }
            pixels.withUnsafeBufferPointer { buffer in
                _ = xcb_put_image(raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, gc, UInt16(width), UInt16(rows), 0, Int16(top), 0, 24,
                                  UInt32(buffer.count), buffer.baseAddress)
            }
        }
        free(xcb_get_input_focus_reply(raw, xcb_get_input_focus(raw), nil))
    }

    deinit { xcb_disconnect(raw) }
}
