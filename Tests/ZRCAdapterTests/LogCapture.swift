import Logging
import Synchronization

/// Collects log lines so tests can check that a fallback was announced with its reason.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    var all: [String] { lines.withLock { $0 } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

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
