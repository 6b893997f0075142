internal import CXCB
import Foundation
import Testing

/// An ordinary X client, written with XCB, standing in for an application: a window covering the
/// whole screen that records the pointer and keyboard events it receives.
public final class TestXClient {
    public enum Event: Hashable, CustomStringConvertible {
        case motion(x: Int, y: Int)
        case buttonPress(Int, x: Int, y: Int)
        case buttonRelease(Int, x: Int, y: Int)
        case keyPress(keycode: UInt8, state: UInt16)
        case keyRelease(keycode: UInt8, state: UInt16)

        public var description: String {
            switch self {
            case .motion(let x, let y): "motion \(x),\(y)"
            case .buttonPress(let b, let x, let y): "press \(b) at \(x),\(y)"
            case .buttonRelease(let b, let x, let y): "release \(b) at \(x),\(y)"
            case .keyPress(let k, let s): "key press \(k) state 0x\(String(s, radix: 16))"
            case .keyRelease(let k, let s): "key release \(k) state 0x\(String(s, radix: 16))"
            }
        }
    }

    public static let shiftMask = UInt16(XCB_MOD_MASK_SHIFT.rawValue)
    public static let controlMask = UInt16(XCB_MOD_MASK_CONTROL.rawValue)

    let raw: OpaquePointer
    let window: UInt32
    public let width: Int
    public let height: Int

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        raw = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(raw) == 0, let screen = xcb_setup_roots_iterator(xcb_get_setup(raw)).data?.pointee else {
            xcb_disconnect(raw)
            throw TestFailure("test client cannot connect to \(display)")
        }
        width = Int(screen.width_in_pixels)
        height = Int(screen.height_in_pixels)
        window = xcb_generate_id(raw)
        let mask = XCB_EVENT_MASK_KEY_PRESS.rawValue | XCB_EVENT_MASK_KEY_RELEASE.rawValue
            | XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue
            | XCB_EVENT_MASK_POINTER_MOTION.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        // Value list in bit order of the mask: CW_BACK_PIXEL (black), CW_EVENT_MASK.
        let values: [UInt32] = [screen.black_pixel, mask]
        xcb_create_window(raw, UInt8(XCB_COPY_FROM_PARENT), window, screen.root, 0, 0, screen.width_in_pixels,
                          screen.height_in_pixels, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
                          XCB_CW_BACK_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue, values)
        xcb_map_window(raw, window)
        xcb_flush(raw)
        let deadline = Date().addingTimeInterval(5)
        var mapped = false
        while !mapped && Date() < deadline {
            if let event = xcb_poll_for_event(raw) {
                mapped = event.pointee.response_type & 0x7F == UInt8(XCB_MAP_NOTIFY)
                free(event)
            } else {
                usleep(2000)
            }
        }
        guard mapped else {
            xcb_disconnect(raw)
            throw TestFailure("the test window was not mapped within 5 s")
        }
        // Keys go to the focus window; without a window manager nobody else sets it.
        xcb_set_input_focus(raw, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window, 0)
        sync()
    }

    deinit { xcb_disconnect(raw) }

    /// A round trip: every event the server generated before this call has reached us after it.
    public func sync() {
        free(xcb_get_input_focus_reply(raw, xcb_get_input_focus(raw), nil))
    }

    /// The input events received since the last call (after a `sync`, so everything the server
    /// produced for input injected before this call is included).
    public func takeEvents() -> [Event] {
        sync()
        var events: [Event] = []
        while let generic = xcb_poll_for_event(raw) {
            defer { free(generic) }
            let pointer = UnsafeRawPointer(generic)
            switch Int32(generic.pointee.response_type & 0x7F) {
            case XCB_KEY_PRESS, XCB_KEY_RELEASE:
                let e = pointer.load(as: xcb_key_press_event_t.self)
                events.append(Int32(e.response_type & 0x7F) == XCB_KEY_PRESS
                              ? .keyPress(keycode: e.detail, state: e.state) : .keyRelease(keycode: e.detail, state: e.state))
            case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE:
                let e = pointer.load(as: xcb_button_press_event_t.self)
                let (button, x, y) = (Int(e.detail), Int(e.event_x), Int(e.event_y))
                events.append(Int32(e.response_type & 0x7F) == XCB_BUTTON_PRESS
                              ? .buttonPress(button, x: x, y: y) : .buttonRelease(button, x: x, y: y))
            case XCB_MOTION_NOTIFY:
                let e = pointer.load(as: xcb_motion_notify_event_t.self)
                events.append(.motion(x: Int(e.event_x), y: Int(e.event_y)))
            default:
                break  // MappingNotify, ConfigureNotify and the like
            }
        }
        return events
    }

    /// Fills `rect` of the window with a solid colour (for damage tests).
    public func fill(x: Int, y: Int, width: Int, height: Int, pixel: UInt32) {
        let gc = xcb_generate_id(raw)
        let values: [UInt32] = [pixel]
        xcb_create_gc(raw, gc, window, XCB_GC_FOREGROUND.rawValue, values)
        var rect = xcb_rectangle_t(x: Int16(x), y: Int16(y), width: UInt16(width), height: UInt16(height))
        xcb_poly_fill_rectangle(raw, window, gc, 1, &rect)
        xcb_free_gc(raw, gc)
        sync()
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
