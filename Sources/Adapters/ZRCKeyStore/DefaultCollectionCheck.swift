internal import CSecret

/// Checks, before any libsecret call, that the Secret Service's default collection exists, is
/// persistent and is unlocked.
///
/// Why: libsecret answers a locked or missing default collection by asking the service to prompt
/// the user (unlock, or create a keyring), and waits for the prompt's answer. In a headless session
/// nobody answers, so the call would hang. These checks are plain D-Bus calls with a timeout
/// (`ReadAlias("default")` and the collection's `Locked` property); they read live state on every
/// call instead of libsecret's cached proxies, which miss changes in a process without a main loop.
struct DefaultCollectionCheck {
    static let serviceName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let sessionCollectionPath = "/org/freedesktop/secrets/collection/session"

    let timeout: Duration
    let action: String
    let cancellable: UnsafeMutablePointer<GCancellable>

    /// Returns the default collection's object path once it is known to be usable.
    @discardableResult
    func run() throws(KeyStoreError) -> String {
        let connection: OpaquePointer
        do {
            connection = try GLibError.check(action, timeout: timeout) { error in
                g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error)
            }.unwrap(action: action)
        } catch let error where error.kind == .timedOut {
            throw error
        } catch {
            throw KeyStoreError(
                .serviceUnavailable,
                "Failed \(action): cannot reach the D-Bus session bus, so the Secret Service (D-Bus service "
                    + "org.freedesktop.secrets) cannot be asked (\(error.message)). Run ZRC inside a desktop session, or "
                    + "start a session bus with `dbus-run-session` and a Secret Service in it (e.g. "
                    + "`gnome-keyring-daemon --start --components=secrets`), \(KeyStoreError.fileStoreHint).")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }

        let aliasReply = try methodCall(
            connection, path: Self.servicePath, interface: "org.freedesktop.Secret.Service", method: "ReadAlias",
            arguments: ["default"], replyType: "(o)")
        defer { g_variant_unref(aliasReply) }
        let collectionPath = Self.childString(aliasReply)
        guard collectionPath != "/" else {
            throw KeyStoreError.collectionMissing(action: action, detail: "no collection has the alias “default”")
        }
        guard collectionPath != Self.sessionCollectionPath else {
            throw KeyStoreError(
                .locked,
                "Failed \(action): the keyring's default collection is the in-memory session collection, whose "
                    + "contents are lost at logout; ZRC keeps identity keys only in a persistent collection. "
                    + "Create or unlock the login keyring (e.g. with Seahorse) and make it the default.")
        }

        let lockedReply = try methodCall(
            connection, path: collectionPath, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: ["org.freedesktop.Secret.Collection", "Locked"], replyType: "(v)")
        defer { g_variant_unref(lockedReply) }
        let child = g_variant_get_child_value(lockedReply, 0)!
        defer { g_variant_unref(child) }
        let value = g_variant_get_variant(child)!
        defer { g_variant_unref(value) }
        guard String(cString: g_variant_get_type_string(value)) == "b" else {
            throw KeyStoreError(
                .ioFailure, "Failed \(action): the Secret Service reported a non-boolean Locked property for \(collectionPath).")
        }
        if g_variant_get_boolean(value) != 0 {
            throw KeyStoreError(
                .locked,
                "Failed \(action): the keyring's default collection (\(collectionPath)) is locked. \(KeyStoreError.unlockFix)")
        }
        return collectionPath
    }

    /// One D-Bus method call on the Secret Service with string arguments; the reply's type is checked.
    private func methodCall(
        _ connection: OpaquePointer, path: String, interface: String, method: String, arguments: [String],
        replyType: String
    ) throws(KeyStoreError) -> OpaquePointer {
        var children: [OpaquePointer?] = arguments.map { g_variant_new_string($0) }
        let parameters = g_variant_new_tuple(&children, gsize(children.count))
        let reply = try GLibError.check(action, timeout: timeout) { error in
            g_dbus_connection_call_sync(
                connection, Self.serviceName, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE,
                timeout.milliseconds, cancellable, error)
        }.unwrap(action: action)
        guard String(cString: g_variant_get_type_string(reply)) == replyType else {
            let actual = String(cString: g_variant_get_type_string(reply))
            g_variant_unref(reply)
            throw KeyStoreError(
                .ioFailure, "Failed \(action): the Secret Service answered \(method) with type \(actual), not \(replyType).")
        }
        return reply
    }

    /// The string (or object path) in the first field of a tuple.
    private static func childString(_ tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, 0)!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}

extension Optional {
    /// GLib returns NULL exactly when it sets the error; a NULL without one is a library bug,
    /// reported rather than trapped on.
    func unwrap(action: String) throws(KeyStoreError) -> Wrapped {
        guard let self else {
            throw KeyStoreError(.ioFailure, "Failed \(action): GLib returned no result and no error.")
        }
        return self
    }
}
