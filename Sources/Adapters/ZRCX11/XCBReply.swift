internal import CXCB
internal import Glibc

/// The one place XCB replies and errors are checked and freed.
///
/// libxcb hands out `malloc`ed replies and errors that the caller must `free`; this runs `use`
/// on a successful reply and frees both on every path, so no call site writes its own cleanup.
/// A nil reply without an X error means the connection broke, which is reported with its cause.
func withXCBReply<Reply, Result>(
    on connection: XCBConnectionHandle, request: String,
    _ fetch: (UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>) -> UnsafeMutablePointer<Reply>?,
    _ use: (UnsafeMutablePointer<Reply>) throws(X11Error) -> Result
) throws(X11Error) -> Result {
    var error: UnsafeMutablePointer<xcb_generic_error_t>?
    let reply = fetch(&error)
    defer {
        free(reply)
        free(error)
    }
    if let error {
        throw X11Error(.requestFailed, "the X server rejected \(request): \(describeXError(error.pointee))")
    }
    guard let reply else {
        throw X11Error(.connectionLost, "no reply to \(request): \(connection.failure ?? "the connection closed")")
    }
    return try use(reply)
}

/// Sends nothing itself: waits for the outcome of a `_checked` request that has no reply.
/// This is a round trip, so after it returns the server has processed the request.
func checkXCBRequest(
    on connection: XCBConnectionHandle, request: String, _ cookie: xcb_void_cookie_t
) throws(X11Error) {
    guard let error = xcb_request_check(connection.raw, cookie) else {
        // xcb_request_check returns nil both for success and for a broken connection.
        if let failure = connection.failure {
            throw X11Error(.connectionLost, "\(request) did not complete: \(failure)")
        }
        return
    }
    defer { free(error) }
    throw X11Error(.requestFailed, "the X server rejected \(request): \(describeXError(error.pointee))")
}

/// Core protocol error names; extension errors are shown by number.
func describeXError(_ error: xcb_generic_error_t) -> String {
    let names: [UInt8: String] = [
        1: "BadRequest", 2: "BadValue", 3: "BadWindow", 4: "BadPixmap", 5: "BadAtom", 6: "BadCursor",
        7: "BadFont", 8: "BadMatch", 9: "BadDrawable", 10: "BadAccess", 11: "BadAlloc", 12: "BadColormap",
        13: "BadGContext", 14: "BadIDChoice", 15: "BadName", 16: "BadLength", 17: "BadImplementation",
    ]
    let name = names[error.error_code] ?? "error code \(error.error_code)"
    return "\(name) (major opcode \(error.major_code), minor \(error.minor_code), resource 0x\(String(error.resource_id, radix: 16)))"
}
