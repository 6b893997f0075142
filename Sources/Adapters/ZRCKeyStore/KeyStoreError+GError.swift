internal import CSecret

extension KeyStoreError {
    static let fileStoreHint = "or, for a host run as a service, opt in to the file key store"
    static let noServiceFix = "Start one: log in to a desktop session, or run `gnome-keyring-daemon --start --components=secrets` "
        + "inside a D-Bus session (e.g. under `dbus-run-session`); "

    /// Maps a GLib error from the bus, the Secret Service or libsecret to a kind and an actionable
    /// message. GLib messages name objects and D-Bus errors, never secrets, so they are kept.
    static func from(_ error: UnsafeMutablePointer<GError>, action: String, timeout: Duration) -> KeyStoreError {
        let remoteName = g_dbus_error_get_remote_error(error).map { name in
            defer { g_free(name) }
            return String(cString: name)
        }
        _ = g_dbus_error_strip_remote_error(error)
        let detail = error.pointee.message.map { String(cString: $0) } ?? "no details"
        let domain = error.pointee.domain
        let code = error.pointee.code

        // Calls are cancelled only when their deadline expires (see BoundedCall).
        if domain == g_io_error_quark(),
           code == Int32(G_IO_ERROR_CANCELLED.rawValue) || code == Int32(G_IO_ERROR_TIMED_OUT.rawValue)
        {
            return timedOut(action: action, timeout: timeout)
        }
        if domain == g_dbus_error_quark() {
            switch code {
            case Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue), Int32(G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue):
                return noSecretService(action: action, detail: detail)
            case Int32(G_DBUS_ERROR_TIMEOUT.rawValue), Int32(G_DBUS_ERROR_TIMED_OUT.rawValue):
                return timedOut(action: action, timeout: timeout)
            case Int32(G_DBUS_ERROR_NO_REPLY.rawValue):
                // The bus sends NoReply when the service disconnects with the call pending.
                return KeyStoreError(
                    .serviceUnavailable,
                    "Failed \(action): the Secret Service (D-Bus service org.freedesktop.secrets) went away without "
                        + "answering — it may have crashed (\(detail)). \(noServiceFix)\(fileStoreHint).")
            case Int32(G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue), Int32(G_DBUS_ERROR_UNKNOWN_METHOD.rawValue):
                // gnome-keyring answers "Object does not exist at path …/collection/login" when the
                // default alias points at a keyring that was never created or unlocked.
                return collectionMissing(action: action, detail: detail)
            default:
                break
            }
        }
        if domain == secret_error_get_quark() {
            switch code {
            case Int32(SECRET_ERROR_IS_LOCKED.rawValue):
                return KeyStoreError(
                    .locked, "Failed \(action): the keyring is locked (\(detail)). \(unlockFix)")
            case Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue):
                return collectionMissing(action: action, detail: detail)
            default:
                break
            }
        }
        let name = remoteName.map { " [\($0)]" } ?? ""
        return KeyStoreError(.ioFailure, "Failed \(action): \(detail)\(name).")
    }

    /// `--unlock` alone does not unlock a running daemon's keyring; `--replace --unlock` restarts
    /// the daemon with the login keyring unlocked (and creates it, with that password, if missing).
    static let unlockFix = "Unlock it and try again: log in to the desktop session or unlock the login keyring in a "
        + "keyring manager (e.g. Seahorse); in a headless session pipe the keyring password into "
        + "`gnome-keyring-daemon --replace --unlock --components=secrets` (this creates the login keyring if there is "
        + "none). ZRC never waits for an unlock prompt."

    static func noSecretService(action: String, detail: String) -> KeyStoreError {
        KeyStoreError(
            .serviceUnavailable,
            "Failed \(action): no Secret Service on the D-Bus session bus — the D-Bus service org.freedesktop.secrets "
                + "(e.g. gnome-keyring-daemon) is not running (\(detail)). \(noServiceFix)\(fileStoreHint).")
    }

    static func collectionMissing(action: String, detail: String) -> KeyStoreError {
        KeyStoreError(
            .locked,
            "Failed \(action): the keyring has no usable default collection — the login keyring does not exist or "
                + "was never unlocked in this session (\(detail)). \(unlockFix)")
    }

    static func timedOut(action: String, timeout: Duration) -> KeyStoreError {
        KeyStoreError(
            .timedOut,
            "Failed \(action): the Secret Service did not answer within \(timeout.secondsText) (it may be waiting for "
                + "an unlock prompt nobody can answer, or be hung). \(unlockFix)")
    }
}

/// Checks the `GError` a GLib call may set and turns it into a `KeyStoreError`.
enum GLibError {
    static func check<R>(
        _ action: String, timeout: Duration, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R
    ) throws(KeyStoreError) -> R {
        var error: UnsafeMutablePointer<GError>?
        let result = body(&error)
        guard let error else { return result }
        defer { g_error_free(error) }
        throw KeyStoreError.from(error, action: action, timeout: timeout)
    }
}
