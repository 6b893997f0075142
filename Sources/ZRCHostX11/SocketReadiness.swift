import Dispatch
import Synchronization

/// Waits, without a thread of its own and without blocking a task thread, until a socket has
/// data to read or a timeout passes: the X connection's socket, so a static screen costs no
/// periodic wake-ups.
enum SocketReadiness {
    private static let queue = DispatchQueue(label: "zrc.x11.socket-readiness")

    /// Counts read sources created and not yet cancelled (for tests: zero once every wait ended).
    final class SourceCount: Sendable {
        let live = Atomic<Int>(0)
    }

    /// Returns early when `wakeUp` fires: another task on the same connection read the awaited
    /// data into libxcb's queue, so the socket itself will not become readable for it.
    static func wait(fileDescriptor: Int32, timeout: Duration, wakeUp: WakeUp? = nil, sources: SourceCount? = nil) async {
        guard timeout > .zero, !Task.isCancelled else { return }
        let waiter = Waiter()
        wakeUp?.register(waiter)
        defer { wakeUp?.unregister(waiter) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
                sources?.live.add(1, ordering: .relaxed)
                source.setEventHandler { waiter.finish() }
                source.setCancelHandler { sources?.live.subtract(1, ordering: .relaxed) }
                // Armed before it runs: a finish that came first (cancellation, a wake-up) still
                // cancels this source instead of leaving it live and firing on a readable socket.
                waiter.arm(continuation, source: source)
                source.resume()
                let micros = Int(timeout / .microseconds(1))
                queue.asyncAfter(deadline: .now() + .microseconds(micros)) { waiter.finish() }
            }
        } onCancel: {
            waiter.finish()
        }
    }

    /// Ends the current waits, if any, from another task. Every waiter registered at the time of
    /// `fire` is woken: several viewers of one screen wait at once.
    final class WakeUp: Sendable {
        private let waiters = Mutex<[ObjectIdentifier: Waiter]>([:])

        fileprivate func register(_ waiter: Waiter) { waiters.withLock { $0[ObjectIdentifier(waiter)] = waiter } }

        fileprivate func unregister(_ waiter: Waiter) { _ = waiters.withLock { $0.removeValue(forKey: ObjectIdentifier(waiter)) } }

        func fire() {
            for waiter in waiters.withLock({ Array($0.values) }) { waiter.finish() }
        }

        var waiting: Int { waiters.withLock { $0.count } }
    }

    /// Resumes the continuation exactly once, whichever of readiness, timeout, a wake-up or
    /// cancellation comes first, and cancels the read source. Sendable through its mutex.
    fileprivate final class Waiter: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, source: ReadSource?, done: Bool)>(
            (nil, nil, false))

        /// Hands over the continuation and source; when the wait already finished, both are
        /// finished here at once.
        func arm(_ continuation: CheckedContinuation<Void, Never>, source: any DispatchSourceRead) {
            let finishedEarly = state.withLock { state in
                if state.done { return true }
                state.continuation = continuation
                state.source = ReadSource(source)
                return false
            }
            if finishedEarly {
                source.cancel()
                continuation.resume()
            }
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
