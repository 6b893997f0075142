import Foundation
import Synchronization

/// Tells whoever waits for a condition on some state that the state changed, so a test waits for
/// the condition itself (looking again at each change) instead of sleeping between looks. The
/// owner of the state calls `notify()` after every change; a waiter gives up at its deadline.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The state changed: every waiter looks again.
    public func notify() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether `condition` held within `timeout`, looked at now and after every change; false once
    /// the deadline passed (or the task was cancelled) with it still false.
    public func wait(within timeout: Duration, isolation: isolated (any Actor)? = #isolation,
                     until condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state.withLock { $0.generation }
            if try await condition() { return true }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            await change(after: seen, before: deadline)
        }
    }

    /// Returns at the first change after `seen` (at once if there was one already), at `deadline`,
    /// or when the task is cancelled.
    private func change(after seen: UInt64, before deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.next(after: seen) }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    private func next(after seen: UInt64) async {
        let id: UInt64 = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// For state that no event announces (a listing read over the host's control socket): looks every
/// `interval` until `condition` holds, for at most `timeout`, and says on standard error what it
/// waited for in vain. Prefer a `ChangeSignal` or the state's own event where there is one.
public func pollUntil(_ what: String, within timeout: Duration, every interval: Duration = .milliseconds(50),
                      isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline, !Task.isCancelled else { break }
        try? await Task.sleep(for: interval)
    }
    FileHandle.standardError.write(Data("waited \(timeout) in vain for \(what)\n".utf8))
    return false
}
