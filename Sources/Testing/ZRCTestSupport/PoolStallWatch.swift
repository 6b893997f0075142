import Foundation
import Synchronization

/// Reports, on standard error, when Swift's cooperative pool was so busy that a new task waited
/// seconds to start. Diagnostic only, never a test result: in-process hosts keep their deadlines
/// on NIO's own threads, so a pool held by blocking or CPU-heavy tests shows up as a closed
/// connection, and this line says why (one CI run failed that way with nothing else to go on).
public enum PoolStallWatch {
    /// Reports starts slower than this.
    static let threshold: Duration = .seconds(2)
    private static let started = Mutex(false)

    /// Starts the watch once per process; later calls do nothing.
    public static func start() {
        let first = started.withLock { already in
            defer { already = true }
            return !already
        }
        guard first else { return }
        let thread = Thread { watch() }
        thread.name = "pool-stall-watch"
        thread.start()
    }

    private static func watch() {
        let clock = ContinuousClock()
        while true {
            let asked = clock.now
            let ran = Mutex<ContinuousClock.Instant?>(nil)
            let started = DispatchSemaphore(value: 0)
            Task.detached {
                ran.withLock { $0 = clock.now }
                started.signal()
            }
            // This thread is the watch's own: waiting here holds none of the pool's.
            started.wait()
            if let at = ran.withLock({ $0 }), at - asked > threshold {
                let waited = (at - asked).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
                FileHandle.standardError.write(Data("pool-stall-watch: a new task waited \(waited) to start on Swift's cooperative pool\n".utf8))
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }
}
