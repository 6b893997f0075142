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
    ///
    /// Returns only once the read source is cancelled for good (from its cancellation handler):
    /// libdispatch watches the descriptor until then, and a descriptor closed (and reused) under a
    /// live source crashes its event loop. The caller keeps the descriptor open until this returns.
    static func wait(fileDescriptor: Int32, timeout: Duration, wakeUp: WakeUp? = nil, sources: SourceCount? = nil) async {
        guard timeout > .zero, !Task.isCancelled else { return }
        let waiter = Waiter()
        // A wake-up fired while nobody waited (its data already read into libxcb's queue) ends
        // this wait at once instead of being lost.
        guard wakeUp?.register(waiter) != false else { return }
        defer { wakeUp?.unregister(waiter) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
                sources?.live.add(1, ordering: .relaxed)
                source.setEventHandler { waiter.finish() }
                // Runs exactly once, after `cancel()`, once the source has been resumed.
                source.setCancelHandler {
                    sources?.live.subtract(1, ordering: .relaxed)
                    continuation.resume()
                }
                // Armed before it runs: a finish that came first (cancellation, a wake-up) still
                // cancels this source instead of leaving it live and firing on a readable socket.
                waiter.arm(source)
                source.resume()
                let micros = Int(timeout / .microseconds(1))
                queue.asyncAfter(deadline: .now() + .microseconds(micros)) { waiter.finish() }
            }
        } onCancel: {
            waiter.finish()
        }
    }

    /// Ends the current waits from another task. Every waiter registered at the time of `fire`
    /// is woken (several viewers of one screen wait at once); a `fire` while nobody waits ends
    /// the next wait at once.
    final class WakeUp: Sendable {
        private let state = Mutex<(waiters: [ObjectIdentifier: Waiter], pending: Bool)>(([:], false))

        /// False (and nothing registered) when a wake-up is pending: the wait should not start.
        fileprivate func register(_ waiter: Waiter) -> Bool {
            state.withLock { state in
                if state.pending {
                    state.pending = false
                    return false
                }
                state.waiters[ObjectIdentifier(waiter)] = waiter
                return true
            }
        }

        fileprivate func unregister(_ waiter: Waiter) { _ = state.withLock { $0.waiters.removeValue(forKey: ObjectIdentifier(waiter)) } }

        func fire() {
            let woken = state.withLock { state in
                if state.waiters.isEmpty { state.pending = true }
                return Array(state.waiters.values)
            }
            for waiter in woken { waiter.finish() }
        }

        var waiting: Int { state.withLock { $0.waiters.count } }
    }

    /// Cancels the read source once, whichever of readiness, timeout, a wake-up or cancellation
    /// comes first (the source's cancellation handler then ends the wait). Sendable through its
    /// mutex.
    fileprivate final class Waiter: Sendable {
        private let state = Mutex<(source: ReadSource?, done: Bool)>((nil, false))

        /// Hands over the source; when the wait already finished, it is cancelled at once.
        func arm(_ source: any DispatchSourceRead) {
            let finishedEarly = state.withLock { state in
                if state.done { return true }
                state.source = ReadSource(source)
                return false
            }
            if finishedEarly { source.cancel() }
        }

        func finish() {
            let source = state.withLock { state in
                defer { state = (nil, true) }
                return state.source
            }
            source?.source.cancel()
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
