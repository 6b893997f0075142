internal import CXCB

/// Owns one `xcb_connection_t` and disconnects it exactly once.
///
/// `@unchecked Sendable` is sound: the pointer never changes after init, and libxcb documents a
/// connection as usable from several threads at once (it serialises requests and replies with its
/// own lock). Types that hold request state of their own are not Sendable themselves.
final class XCBConnectionHandle: @unchecked Sendable {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        // Also right for a connection in an error state: xcb_connect always returns an object
        // that must be freed this way. Closing the socket makes the server release everything the
        // client held, including attached MIT-SHM segments.
        xcb_disconnect(raw)
    }

    /// Nil while the connection is healthy, otherwise a sentence saying what broke.
    var failure: String? {
        let code = xcb_connection_has_error(raw)
        return code == 0 ? nil : Self.describe(connectionError: code)
    }

    static func describe(connectionError code: Int32) -> String {
        switch code {
        case XCB_CONN_ERROR:
            "the connection failed (no X server there, it refused our authorization, or it closed the connection; check DISPLAY and XAUTHORITY)"
        case XCB_CONN_CLOSED_EXT_NOTSUPPORTED: "the server lacks an extension a request needed"
        case XCB_CONN_CLOSED_MEM_INSUFFICIENT: "out of memory"
        case XCB_CONN_CLOSED_REQ_LEN_EXCEED: "a request was longer than the server accepts"
        case XCB_CONN_CLOSED_PARSE_ERR: "the display name is malformed (expected something like :0 or host:0.0)"
        case XCB_CONN_CLOSED_INVALID_SCREEN: "the display has no screen with that number"
        case XCB_CONN_CLOSED_FDPASSING_FAILED: "passing a file descriptor to the server failed"
        default: "libxcb connection error \(code)"
        }
    }
}
