internal import CXCB

/// QueryVersion for the extensions that insist on it: DAMAGE and XFIXES refuse every other
/// request (BadRequest) from a client that has not announced the version it speaks, and RANDR
/// answers with the version that decides whether GetMonitors (1.5) exists. Announcing again on
/// a connection that already did is harmless, so each user asks for itself.
enum ExtensionVersion {
    /// DAMAGE 1.1, the version with the Subtract semantics DamageMonitor relies on.
    static func announceDamage(on connection: X11Connection) throws(X11Error) {
        try require(.damage, on: connection)
        let raw = connection.handle.raw
        try withXCBReply(on: connection.handle, request: "DAMAGE QueryVersion", { error in
            xcb_damage_query_version_reply(raw, xcb_damage_query_version(raw, 1, 1), error)
        }) { _ in }
    }

    /// XFIXES 2.0: regions (for DAMAGE) and cursor images.
    static func announceXFixes(on connection: X11Connection) throws(X11Error) {
        try require(.xfixes, on: connection)
        let raw = connection.handle.raw
        let major = try withXCBReply(on: connection.handle, request: "XFIXES QueryVersion", { error in
            xcb_xfixes_query_version_reply(raw, xcb_xfixes_query_version(raw, 5, 0), error)
        }) { reply in reply.pointee.major_version }
        guard major >= 2 else {
            throw X11Error(.extensionMissing, "X display \"\(connection.displayName)\" offers XFIXES \(major), ZRC needs 2 or later")
        }
    }

    /// The RANDR version the server speaks, at most 1.5.
    static func randr(on connection: X11Connection) throws(X11Error) -> (major: UInt32, minor: UInt32) {
        try require(.randr, on: connection)
        let raw = connection.handle.raw
        return try withXCBReply(on: connection.handle, request: "RANDR QueryVersion", { error in
            xcb_randr_query_version_reply(raw, xcb_randr_query_version(raw, 1, 5), error)
        }) { reply in (reply.pointee.major_version, reply.pointee.minor_version) }
    }

    static func require(_ ext: X11Extension, on connection: X11Connection) throws(X11Error) {
        guard connection.has(ext) else {
            throw X11Error(.extensionMissing, "X display \"\(connection.displayName)\" does not offer the \(ext) extension")
        }
    }
}
