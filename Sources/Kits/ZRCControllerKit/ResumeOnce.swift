import Synchronization

/// A continuation that may be resumed from several places of which only the first counts
/// (e.g. "session started" versus "connection failed").
final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: Result<Value, any Error>) {
        let taken = continuation.withLock { value in
            defer { value = nil }
            return value
        }
        taken?.resume(with: result)
    }
}
