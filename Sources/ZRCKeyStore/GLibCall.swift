internal import CSecret
import Dispatch

/// Runs one blocking GLib/libsecret call under a deadline, and turns its `GError` into a
/// `KeyStoreError`.
///
/// The deadline is a `GCancellable` cancelled from a timer on another thread: libsecret's `…_sync`
/// calls and GDBus honour cancellation, including a pending unlock prompt (which libsecret then
/// dismisses). So a call can never block longer than `timeout`, whatever the service does.
struct GLibCall {
    let timeout: Duration
    /// What the call does, for messages: "storing the host key “k1” in the keyring".
    let action: String

    func run<R>(
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R
    ) throws(KeyStoreError) -> R {
        let deadline = Deadline()
        let timer = DispatchWorkItem { [deadline] in deadline.expire() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval, execute: timer)
        var error: UnsafeMutablePointer<GError>?
        let result = body(deadline.cancellable, &error)
        timer.cancel()
        guard let error else { return result }
        defer { g_error_free(error) }
        throw KeyStoreError.from(error, action: action, expired: deadline.hasExpired, timeout: timeout)
    }

    /// Owns one `GCancellable`. Sendable: `g_cancellable_cancel` and `g_cancellable_is_cancelled`
    /// are thread-safe (GIO documents GCancellable for cross-thread cancellation), the pointer is
    /// never reassigned, and the object is unreferenced once, in `deinit`.
    private final class Deadline: @unchecked Sendable {
        let cancellable: UnsafeMutablePointer<GCancellable>

        init() { cancellable = g_cancellable_new() }
        deinit { g_object_unref(cancellable) }

        func expire() { g_cancellable_cancel(cancellable) }
        var hasExpired: Bool { g_cancellable_is_cancelled(cancellable) != 0 }
    }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    var milliseconds: Int32 {
        let (seconds, attoseconds) = components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    var secondsText: String {
        let (seconds, attoseconds) = components
        return attoseconds == 0 ? "\(seconds) s" : "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }
}
