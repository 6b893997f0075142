import Synchronization

/// A termination signal that may arrive before there is anything to stop: installed first, it
/// remembers the request, and runs the action once one is set (at once if the request came
/// first). So a Ctrl-C while `serve --virtual` starts its desktop still stops it cleanly.
public final class ShutdownRequest: Sendable {
    private let state = Mutex<(requested: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    public init() {}

    public var isRequested: Bool { state.withLock { $0.requested } }

    /// Called from the signal handler.
    public func request() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.requested else { return nil }
            state.requested = true
            return state.action
        }
        action?()
    }

    /// What a request does; runs now when one already came.
    public func onRequest(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            state.action = action
            return state.requested
        }
        if now { action() }
    }
}
