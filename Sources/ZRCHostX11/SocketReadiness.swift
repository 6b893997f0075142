import Dispatch
import Synchronization

/// Waits, without a thread of its own and without blocking a task thread, until a socket has
/// data to read or a timeout passes: the X connection's socket, so a static screen costs no
/// periodic wake-ups.
enum SocketReadiness {
    private static let queue = DispatchQueue(label: "zrc.x11.socket-readiness")

    /// Returns early when `wakeUp` fires: another task on the same connection read the awaited
    /// data into libxcb's queue, so the socket itself will not become readable for it.
    static func wait(fileDescriptor: Int32, timeout: Duration, wakeUp: WakeUp? = nil) async {
        guard timeout > .zero, !Task.isCancelled else { return }
        let waiter = Waiter()
        wakeUp?.register(waiter)
        defer { wakeUp?.register(nil) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
                waiter.arm(continuation, source: source)
                source.setEventHandler { waiter.finish() }
                source.resume()
                let micros = Int(timeout / .microseconds(1))
                queue.asyncAfter(deadline: .now() + .microseconds(micros)) { waiter.finish() }
            }
        } onCancel: {
            waiter.finish()
        }
    }

    /// Ends the current wait, if any, from another task.
    final class WakeUp: Sendable {
        private let waiter = Mutex<Waiter?>(nil)

        fileprivate func register(_ waiter: Waiter?) { self.waiter.withLock { $0 = waiter } }

        func fire() { waiter.withLock { $0 }?.finish() }
    }

    /// Resumes the continuation exactly once, whichever of readiness, timeout, a wake-up or
    /// cancellation comes first, and cancels the read source. Sendable through its mutex.
    fileprivate final class Waiter: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, source: ReadSource?, done: Bool)>(
            (nil, nil, false))

        func arm(_ continuation: CheckedContinuation<Void, Never>, source: any DispatchSourceRead) {
            let finishedEarly = state.withLock { state in
                if state.done { return true }
                state.continuation = continuation
                state.source = ReadSource(source)
                return false
            }
            if finishedEarly { continuation.resume() }
        }

        func finish() {
            let (continuation, source) = state.withLock { state in
                defer { state = (nil, nil, true) }
                return (state.continuation, state.source)
            }
            source?.source.cancel()
            continuation?.resume()
        }
    }
}

/// A dispatch read source passed between the queue's handlers and the cancellation handler.
/// `@unchecked Sendable` is safe: the only call made through it is `cancel()`, which libdispatch
/// documents as callable from any thread at any time, and the reference itself never changes.
private final class ReadSource: @unchecked Sendable {
    let source: any DispatchSourceRead
    init(_ source: any DispatchSourceRead) { self.source = source }
}
