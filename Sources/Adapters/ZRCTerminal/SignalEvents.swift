import Dispatch
import Glibc

/// Signals the viewer reacts to, as a stream: the terminal was resized (SIGWINCH), or the user or
/// system wants it gone (SIGINT, SIGTERM, SIGHUP), in which case the viewer restores the terminal
/// before it exits instead of dying with the terminal in raw mode.
public final class SignalEvents: Sendable {
    public static let handled: [Int32] = [SIGWINCH, SIGINT, SIGTERM, SIGHUP]

    public let signals: AsyncStream<Int32>
    // DispatchSourceSignal is thread-safe (its own queue); the sources are only cancelled in deinit.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    public init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(16))
        signals = stream
        let queue = DispatchQueue(label: "zrc.terminal.signals")
        sources = Self.handled.map { number in
            // The default action would end the process before the terminal is restored.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
    }
}
