import Synchronization
import ZRCFrames
public import ZRCProtocol

/// What a viewer shows, as the session last pushed it.
public struct ViewerSnapshot: Sendable {
    /// The newest composed frame; nil before the first one and for the moment the session applies
    /// the next update (it takes the frame back first, so the pixels are not copied for a frame
    /// nobody looks at).
    public let frame: ComposedFrame?
    /// Whether `frame` is newer than the one the previous `take()` returned; its `changedSince`
    /// then names what changed since that one, else it is empty.
    public let frameIsNew: Bool
    /// How many updates the session has composed so far (a viewer that fell behind skipped some).
    public let framesComposed: Int
    public let cursor: RemoteCursor
    /// The path as the host's pacing last measured it.
    public let link: LinkStats?
}

/// The session's newest-only push channel to its one viewer: the session publishes every composed
/// frame, pointer change and link measurement; the viewer waits for `changed()` and reads the
/// newest state with `take()` — no queue of stale pictures and no hop into the session's actor.
///
/// A `Mutex` guards every field, and continuations are resumed outside the lock.
public final class ViewerFeed: Sendable {
    private struct State {
        var frame: ComposedFrame?
        var frameIsNew = false
        var takenVersion: UInt64 = 0
        var framesComposed = 0
        var cursor = RemoteCursor()
        var link: LinkStats?
        var signalled = false
        var closed = false
        var waiter: CheckedContinuation<Bool, Never>?

        mutating func signal() -> CheckedContinuation<Bool, Never>? {
            signalled = true
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Mutex(State())

    package init() {}

    // MARK: The session's side

    /// Drops the feed's reference to the picture before the session changes it in place.
    package func reclaim() {
        state.withLock { $0.frame = nil }
    }

    /// `make` builds the frame from the version the viewer last took (what it has to redraw).
    package func publish(_ make: (_ takenVersion: UInt64) -> ComposedFrame) {
        let waiter = state.withLock { state in
            state.frame = make(state.takenVersion)
            state.frameIsNew = true
            state.framesComposed += 1
            return state.signal()
        }
        waiter?.resume(returning: true)
    }

    package func publish(cursor: RemoteCursor) {
        let waiter = state.withLock { state in
            state.cursor = cursor
            return state.signal()
        }
        waiter?.resume(returning: true)
    }

    package func publish(link: LinkStats) {
        let waiter = state.withLock { state in
            state.link = link
            return state.signal()
        }
        waiter?.resume(returning: true)
    }

    /// The session ended: `changed()` returns false from now on.
    package func close() {
        let waiter = state.withLock { state in
            state.closed = true
            state.frame = nil
            return state.signal()
        }
        waiter?.resume(returning: false)
    }

    // MARK: The viewer's side (one viewer per session)

    /// Waits until something was published since the previous call returned; false once the
    /// session has ended or the waiting task is cancelled.
    public func changed() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if state.closed || Task.isCancelled { return false }
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: false)
        }
    }

    /// The pointer as last pushed, without taking the frame.
    public var cursor: RemoteCursor { state.withLock { $0.cursor } }

    /// Whether a frame newer than the one last taken waits.
    public var hasNewFrame: Bool { state.withLock { $0.frameIsNew && $0.frame != nil } }

    /// How many updates the session has composed so far.
    public var framesComposed: Int { state.withLock { $0.framesComposed } }

    /// The newest state; marks the frame as taken. Hold the frame only while drawing it: the
    /// session changes the pixels in place when nobody else holds them.
    public func take() -> ViewerSnapshot {
        state.withLock { state in
            state.signalled = false
            var frame = state.frame
            let isNew = state.frameIsNew && frame != nil
            if isNew, let version = frame?.version {
                state.takenVersion = version
                state.frameIsNew = false
            } else {
                frame?.changedSince = []
                frame?.plan = ChangePlan()
            }
            return ViewerSnapshot(frame: frame, frameIsNew: isNew, framesComposed: state.framesComposed, cursor: state.cursor,
                                  link: state.link)
        }
    }
}
