#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CSecret
import Dispatch
import Synchronization
import ZRCSystem

/// Runs one keyring operation on a thread of its own and waits for it at most `timeout`.
///
/// Why a thread and not just a `GCancellable`: libsecret's `…_sync` calls honour cancellation
/// while a D-Bus call is pending, but not reliably while an unlock prompt is up — libsecret 0.20.5
/// was seen to cancel the prompt, hit `g_task_return_error: assertion 'error != NULL'` and never
/// return. So on expiry the caller first cancels (the well-behaved path unwinds within `grace`),
/// then stops waiting: it reports `.timedOut` and leaves the worker behind. An abandoned worker
/// keeps what it captured (including a key being stored) until it ends, if ever; the process
/// normally exits soon after such an error.
///
/// Everything the operation touches in GLib is created inside it, on the worker thread; only the
/// `GCancellable` is shared, and GIO documents cancelling from another thread as safe.
enum BoundedCall {
    static let grace = Duration.milliseconds(500)

    static func run<R: Sendable>(
        timeout: Duration, action: String,
        _ operation: @escaping @Sendable (UnsafeMutablePointer<GCancellable>) throws(KeyStoreError) -> R
    ) throws(KeyStoreError) -> R {
        let deadline = Deadline()
        let outcome = Outcome<R>()
        let job = Job {
            let result: Result<R, KeyStoreError>
            do throws(KeyStoreError) {
                result = .success(try operation(deadline.cancellable))
            } catch {
                result = .failure(error)
            }
            outcome.deliver(result)
        }
        try job.start(action: action)

        if let result = outcome.wait(for: timeout) { return try result.get() }
        deadline.expire()
        if let result = outcome.wait(for: grace) { return try result.get() }
        throw KeyStoreError.timedOut(action: action, timeout: timeout)
    }

    /// Owns one `GCancellable`. Sendable: `g_cancellable_cancel` is thread-safe, the pointer never
    /// changes, and the object is unreferenced once, in `deinit` (after the worker let go of it).
    private final class Deadline: @unchecked Sendable {
        let cancellable: UnsafeMutablePointer<GCancellable>

        init() { cancellable = g_cancellable_new() }
        deinit { g_object_unref(cancellable) }

        func expire() { g_cancellable_cancel(cancellable) }
    }

    /// The worker's result, handed over once.
    private final class Outcome<R: Sendable>: Sendable {
        private let result = Mutex<Result<R, KeyStoreError>?>(nil)
        private let delivered = DispatchSemaphore(value: 0)

        func deliver(_ value: Result<R, KeyStoreError>) {
            result.withLock { $0 = value }
            delivered.signal()
        }

        func wait(for duration: Duration) -> Result<R, KeyStoreError>? {
            guard delivered.wait(timeout: .now() + duration.dispatchInterval) == .success else { return nil }
            return result.withLock { $0 }
        }
    }

    /// A detached POSIX thread running one closure. Not a Dispatch queue: a blocked keyring call
    /// must not occupy (or wait for) a thread of a shared pool.
    private final class Job: Sendable {
        let work: @Sendable () -> Void

        init(_ work: @escaping @Sendable () -> Void) { self.work = work }

        func start(action: String) throws(KeyStoreError) {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(&thread, nil, { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                job.work()
                return nil
            }, context)
            guard status == 0 else {
                Unmanaged<Job>.fromOpaque(context).release()
                throw KeyStoreError(
                    .ioFailure, "Failed \(action): cannot start a thread (\(SystemCall.describe(status))).")
            }
            pthread_detach(thread)
        }
    }
}
