public import Logging
import Synchronization

/// Collects log lines so tests can check that what should be logged (a refused connection, a
/// capture fallback) was logged with its reason.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    private let appended = ChangeSignal()

    public init() {}

    public var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    public var all: [String] { lines.withLock { $0 } }

    public func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }

    /// Waits up to `timeout` for a line containing `text`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(10)) async -> Bool {
        await appended.wait(within: timeout) { contains(text) }
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
        appended.notify()
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let context = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(context) \(event.message)")
        }
    }
}
