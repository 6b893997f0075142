internal import CXCB
internal import Glibc

extension X11Connection {
    /// Whether a window manager runs on this screen: an EWMH one names its check window in the
    /// root window's `_NET_SUPPORTING_WM_CHECK` once it manages windows. Clients mapped before
    /// then can stay unmapped (a window manager starting up drops their map requests), so a
    /// session starts its programs after this says yes.
    public func windowManagerIsRunning() throws(X11Error) -> Bool {
        let raw = handle.raw
        let name = "_NET_SUPPORTING_WM_CHECK"
        let atom = try withXCBReply(on: handle, request: "InternAtom \(name)", { error in
            xcb_intern_atom_reply(raw, xcb_intern_atom(raw, 1, UInt16(name.utf8.count), name), error)
        }) { reply in reply.pointee.atom }
        guard atom != 0 else { return false }  // no client ever named it: no window manager yet
        return try withXCBReply(on: handle, request: "GetProperty \(name)", { error in
            xcb_get_property_reply(raw, xcb_get_property(raw, 0, screen.rootWindow, atom, xcb_atom_t(XCB_ATOM_WINDOW.rawValue), 0, 1), error)
        }) { reply in reply.pointee.type == xcb_atom_t(XCB_ATOM_WINDOW.rawValue) && xcb_get_property_value_length(reply) == 4 }
    }
}
