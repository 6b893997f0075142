internal import CXCB
import Foundation

/// A hostile X client for the clipboard tests, written with XCB: it sends selection requests that
/// name another client's window, forges SelectionNotify events with SendEvent, writes properties
/// on other clients' windows, and can own a selection and answer requests by hand.
public final class SelectionAttacker {
    let raw: OpaquePointer
    public let window: UInt32

    /// A request this client received as an owner.
    public struct Request: Sendable {
        public let requestor: UInt32
        public let selection: UInt32
        public let target: UInt32
        public let property: UInt32
        public let time: UInt32
    }

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        raw = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(raw) == 0, let screen = xcb_setup_roots_iterator(xcb_get_setup(raw)).data?.pointee else {
            xcb_disconnect(raw)
            throw TestFailure("the attacking client cannot connect to \(display)")
        }
        window = xcb_generate_id(raw)
        var mask = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        xcb_create_window(raw, 0, window, screen.root, 0, 0, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
                          XCB_CW_EVENT_MASK.rawValue, &mask)
        sync()
    }

    deinit { xcb_disconnect(raw) }

    /// A round trip: every request sent before has been handled by the server.
    public func sync() {
        free(xcb_get_input_focus_reply(raw, xcb_get_input_focus(raw), nil))
    }

    public func atom(_ name: String) -> UInt32 {
        guard let reply = xcb_intern_atom_reply(raw, xcb_intern_atom(raw, 0, UInt16(name.utf8.count), name), nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.atom
    }

    /// ConvertSelection naming `requestor` (any window, not necessarily this client's).
    public func convertSelection(requestor: UInt32, selection: String, target: String, property: String) {
        xcb_convert_selection(raw, requestor, atom(selection), atom(target), atom(property), 0)
        sync()
    }

    /// Takes `selection` with this client's window (and then answers only what the test does by hand).
    public func own(_ selection: String) {
        xcb_set_selection_owner(raw, window, atom(selection), 0)
        sync()
    }

    /// Writes 8-bit `type` data into `property` of any window.
    public func write(_ bytes: [UInt8], type: String, to window: UInt32, property: UInt32) {
        bytes.withUnsafeBytes { buffer in
            _ = xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, atom(type), 8, UInt32(bytes.count),
                                    buffer.baseAddress)
        }
        sync()
    }

    /// A SelectionNotify sent with SendEvent, as owners answer and as anyone can forge.
    public func sendSelectionNotify(to requestor: UInt32, selection: UInt32, target: UInt32, property: UInt32, time: UInt32) {
        var notify = xcb_selection_notify_event_t()
        notify.response_type = UInt8(XCB_SELECTION_NOTIFY)
        notify.time = time
        notify.requestor = requestor
        notify.selection = selection
        notify.target = target
        notify.property = property
        withUnsafeBytes(of: &notify) { bytes in
            _ = xcb_send_event(raw, 0, requestor, UInt32(XCB_EVENT_MASK_NO_EVENT.rawValue), bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        sync()
    }

    /// The next SelectionRequest this client gets as an owner, or nil after `timeout`.
    public func nextRequest(timeout: Duration) -> Request? {
        nextEvent(timeout: timeout) { type, event in
            guard type == UInt8(XCB_SELECTION_REQUEST) else { return nil }
            let request = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_request_event_t.self).pointee
            return Request(requestor: request.requestor, selection: request.selection, target: request.target, property: request.property,
                           time: request.time)
        }
    }

    /// The next SelectionNotify this client gets (the answer to its own ConvertSelection), or nil.
    public func nextNotify(timeout: Duration) -> (property: UInt32, target: UInt32)? {
        nextEvent(timeout: timeout) { type, event in
            guard type == UInt8(XCB_SELECTION_NOTIFY) else { return nil }
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_notify_event_t.self).pointee
            return (notify.property, notify.target)
        }
    }

    /// The events every client has selected on `window` (GetWindowAttributes' all-event-masks).
    public func allEventMasks(of window: UInt32) -> UInt32? {
        guard let reply = xcb_get_window_attributes_reply(raw, xcb_get_window_attributes(raw, window), nil) else { return nil }
        defer { free(reply) }
        return reply.pointee.all_event_masks
    }

    public static let propertyChangeMask = UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)

    private func nextEvent<T>(timeout: Duration, _ match: (UInt8, UnsafeMutablePointer<xcb_generic_event_t>) -> T?) -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let event = xcb_poll_for_event(raw) else {
                usleep(2000)
                continue
            }
            defer { free(event) }
            if let value = match(event.pointee.response_type & 0x7F, event) { return value }
        }
        return nil
    }
}
