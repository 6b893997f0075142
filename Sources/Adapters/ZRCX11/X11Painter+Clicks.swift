internal import CXCB
internal import Glibc

extension X11Painter {
    /// Asks for the button presses on the painter's window (the latency benchmark's probe reacts
    /// to clicks the way an application would).
    public func listenForButtonPresses() throws(X11Error) {
        let raw = connection.handle.raw
        var mask = XCB_EVENT_MASK_BUTTON_PRESS.rawValue
        try checkXCBRequest(on: connection.handle, request: "ChangeWindowAttributes (event mask)",
                            xcb_change_window_attributes_checked(raw, window, XCB_CW_EVENT_MASK.rawValue, &mask))
    }

    /// Blocks until the next button press on the window and returns where it was.
    public func waitForButtonPress() throws(X11Error) -> (x: Int, y: Int, button: Int) {
        let raw = connection.handle.raw
        while true {
            guard let event = xcb_wait_for_event(raw) else {
                throw X11Error(.connectionLost, "the X connection closed while waiting for a click: \(connection.handle.failure ?? "")")
            }
            defer { free(event) }
            if Int32(event.pointee.response_type & 0x7F) == XCB_BUTTON_PRESS {
                let press = UnsafeRawPointer(event).load(as: xcb_button_press_event_t.self)
                return (Int(press.event_x), Int(press.event_y), Int(press.detail))
            }
        }
    }

    /// The next button press already received, if any, without waiting.
    public func pollButtonPress() throws(X11Error) -> (x: Int, y: Int, button: Int)? {
        let raw = connection.handle.raw
        while let event = xcb_poll_for_event(raw) {
            defer { free(event) }
            if Int32(event.pointee.response_type & 0x7F) == XCB_BUTTON_PRESS {
                let press = UnsafeRawPointer(event).load(as: xcb_button_press_event_t.self)
                return (Int(press.event_x), Int(press.event_y), Int(press.detail))
            }
        }
        if xcb_connection_has_error(raw) != 0 {
            throw X11Error(.connectionLost, "the X connection closed while looking for clicks: \(connection.handle.failure ?? "")")
        }
        return nil
    }
}
