import Foundation
import Glibc
import Synchronization
import ZRCCommandSupport
import ZRCProtocol

/// What `cp` shows: on a terminal one progress line per file (bytes, rate, ETA) and a total at
/// the end; with `--json` JSON lines (progress at most five a second per file); with `-q` nothing
/// but errors and skipped entries.
final class CopyReport: Sendable {
    private let json: Bool
    private let quiet: Bool
    private let terminal: Bool
    /// The host's name, for a terminal viewer's status line (`TransferBoard`).
    private let host: String
    private let totals = Mutex<(files: Int, bytes: UInt64, started: ContinuousClock.Instant)>((0, 0, .now))

    init(json: Bool, quiet: Bool, host: String) {
        self.host = host
        self.json = json
        self.quiet = quiet
        terminal = isatty(STDERR_FILENO) == 1
    }

    final class Progress: Sendable {
        let name: String
        let total: UInt64
        private let report: CopyReport
        /// `base`: the first offset reported — where a resumed transfer started — so the rate
        /// counts only the bytes this run moved, from then (`started` moves there: checking a
        /// kept part's digest took time that moved nothing).
        private let state = Mutex<(done: UInt64, base: UInt64?, shown: ContinuousClock.Instant?, started: ContinuousClock.Instant)>((0, nil, nil, .now))

        init(name: String, total: UInt64, report: CopyReport) {
            self.name = TerminalSafeText.sanitized(name)
            self.total = total
            self.report = report
        }

        func update(_ done: UInt64) {
            let (show, base, elapsed) = state.withLock { state -> (Bool, UInt64, Duration) in
                state.done = done
                let now = ContinuousClock.now
                let base = state.base ?? done
                if state.base == nil {
                    state.base = base
                    state.started = now
                }
                guard state.shown.map({ now - $0 >= .milliseconds(200) }) ?? true else { return (false, base, .zero) }
                state.shown = now
                return (true, base, now - state.started)
            }
            if show { report.show(self, done: done, moved: done - min(done, base), elapsed: elapsed, final: false) }
        }

        func done() {
            let (base, elapsed) = state.withLock { ($0.base ?? 0, ContinuousClock.now - $0.started) }
            report.show(self, done: total, moved: total - min(total, base), elapsed: elapsed, final: true)
            report.totals.withLock {
                $0.files += 1
                $0.bytes += total
            }
        }
    }

    func start(_ name: String, total: UInt64) -> Progress { Progress(name: name, total: total, report: self) }

    /// `moved`: what this run sent or received of `done` (less when it resumed a kept part).
    fileprivate func show(_ progress: Progress, done: UInt64, moved: UInt64, elapsed: Duration, final: Bool) {
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let rate = Double(moved) / seconds
        if final { TransferBoard.remove() } else {
            TransferBoard.post(.init(host: host, file: progress.name, done: done, total: progress.total, bytesPerSecond: Int(rate)))
        }
        if json {
            Console.line(FileSession.json(["event": final ? "done" : "progress", "file": progress.name, "bytes": done, "total": progress.total,
                                           "bytesPerSecond": Int(rate)]))
            return
        }
        guard !quiet else { return }
        let eta = rate > 0 && done < progress.total ? String(format: "ETA %.0fs", Double(progress.total - done) / rate) : ""
        let percent = progress.total == 0 ? 100 : Int(Double(done) * 100 / Double(progress.total))
        let line = "\(progress.name)  \(percent)%  \(Self.bytes(done))/\(Self.bytes(progress.total))  \(Self.bytes(UInt64(rate)))/s  \(eta)"
        if terminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + (final ? "\n" : "")).utf8))
        } else if final {
            Console.warn(line)
        }
    }

    func skipped(_ what: String, _ why: String) {
        if json { Console.line(FileSession.json(["event": "skipped", "file": what, "reason": why])) }
        Console.warn("zrc-ctl: skipped \(what): \(why)")
    }

    func finished() {
        TransferBoard.remove()
        let (files, bytes, started) = totals.withLock { ($0.files, $0.bytes, $0.started) }
        let elapsed = ContinuousClock.now - started
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        if json {
            Console.line(FileSession.json(["event": "finished", "files": files, "bytes": bytes, "seconds": seconds]))
        } else if !quiet {
            Console.warn("zrc-ctl: \(files) file\(files == 1 ? "" : "s"), \(Self.bytes(bytes)) in \(String(format: "%.1f", seconds)) s")
        }
    }

    static func bytes(_ count: UInt64) -> String { ByteCount.text(count) }
}
