import ArgumentParser
import Foundation
import Synchronization
import ZRCCommandSupport
import ZRCX11

/// A child process of the benchmark: its own Xvfb, painter or sink.
final class BenchChild {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let name: String
    /// What `nextLine` has read past the line it returned.
    private var unread = Data()

    init(_ name: String, executable: String, arguments: [String], quiet: Bool = false) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        if quiet { process.standardError = FileHandle.nullDevice }
        do {
            try process.run()
        } catch {
            throw ValidationError("cannot start \(name) (\(executable)): \(error.localizedDescription)")
        }
        let pid = process.processIdentifier
        Self.running.withLock { _ = $0.insert(pid) }
    }

    /// This benchmark's own executable, to run its `paint` and `sink` subcommands.
    static var selfExecutable: String { Bundle.main.executablePath ?? CommandLine.arguments[0] }

    /// A program built beside this one (`swift build` puts every product in one directory).
    static func companion(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: selfExecutable).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("\(name) is not built beside zrc-bench (\(path)); `swift build -c release` builds it")
        }
        return path
    }

    /// Waits for a line on the child's stdout (e.g. "ready").
    func waitForLine(_ expected: String, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try await nextLine(timeout: deadline - ContinuousClock.now)
            if line == expected { return }
        }
    }

    /// The next line the child writes on stdout, without its newline. Looks without blocking and
    /// sleeps between looks: the benchmark's own host may run on Swift's few cooperative threads,
    /// and a blocked one could keep it from answering the very child waited for.
    func nextLine(timeout: Duration) async throws -> String {
        let handle = output.fileHandleForReading
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = unread.firstIndex(of: 0x0A) {
                let line = String(decoding: unread[unread.startIndex..<newline], as: UTF8.self)
                unread = Data(unread[(newline + 1)...])
                return line
            }
            guard unread.count < 1 << 20 else { throw ValidationError("\(name) wrote a line over 1 MiB") }
            guard ContinuousClock.now < deadline else { throw ValidationError("\(name) wrote no line within \(timeout)") }
            var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else {
                guard process.isRunning else { throw ValidationError("\(name) exited with status \(process.terminationStatus)") }
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            let chunk = handle.availableData
            if chunk.isEmpty { throw ValidationError("\(name) closed its output") }
            unread.append(chunk)
        }
    }

    /// A field of the child's /proc status in bytes: `VmRSS` (resident now) or `VmHWM` (the
    /// resident peak the kernel keeps); nil once it has exited.
    func memory(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// Starts the child's `VmHWM` again from its current resident size (clear_refs 5).
    func resetMemoryPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/clear_refs"))
    }

    func send(line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// SIGKILL at once, as power loss or the OOM killer would: the child cleans nothing up.
    func kill9() {
        let pid = process.processIdentifier
        defer { Self.running.withLock { _ = $0.remove(pid) } }
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        while process.isRunning { usleep(10_000) }
    }

    /// SIGTERM, then SIGKILL after a second. Polls instead of `waitUntilExit`, which spins a
    /// run loop on threads that have none.
    func stop() {
        let pid = process.processIdentifier
        defer { Self.running.withLock { _ = $0.remove(pid) } }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where process.isRunning { usleep(10_000) }
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        while process.isRunning { usleep(10_000) }
    }

    /// Children still running, killed if the benchmark itself is interrupted.
    private static let running = Mutex<Set<Int32>>([])

    /// On SIGINT/SIGTERM/SIGHUP: kill every child (an orphaned Xvfb would keep its display).
    static func killChildrenOnSignal() -> [any DispatchSourceSignal] {
        CommandRunner.onTerminationSignal { number in
            running.withLock { pids in for pid in pids { kill(pid, SIGKILL) } }
            Glibc.exit(128 + number)
        }
    }
}

/// An Xvfb of the benchmark's own, so nothing else draws on the measured screen.
enum BenchDisplay {
    /// The display given on the command line, or an Xvfb of our own (returned, to be stopped).
    static func open(given display: String?, width: Int, height: Int) throws -> (name: String, server: BenchChild?) {
        if let display { return (display, nil) }
        let started = try start(width: width, height: height)
        return (started.name, started.server)
    }

    /// Xvfb picks a free display number itself (`-displayfd 1`: it writes the number on its
    /// standard output once it listens), so benchmarks started at once, and the tests' servers,
    /// never race for one.
    static func start(width: Int, height: Int) throws -> (name: String, server: BenchChild) {
        let xvfb = "/usr/bin/Xvfb"
        guard FileManager.default.isExecutableFile(atPath: xvfb) else {
            throw ValidationError("Xvfb is not installed: run Tools/install-deps.sh (package xvfb), or pass --display")
        }
        let server = try BenchChild("Xvfb", executable: xvfb,
                                    arguments: ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"],
                                    quiet: true)
        guard let number = displayNumber(of: server, within: .seconds(10)) else {
            server.stop()
            throw ValidationError("Xvfb reported no display number within 10 s")
        }
        let name = ":\(number)"
        guard (try? X11Connection(displayName: name)) != nil else {
            server.stop()
            throw ValidationError("Xvfb on \(name) does not accept a connection")
        }
        return (name, server)
    }

    /// The number Xvfb writes (a whole line) on its standard output once it listens; nil if it
    /// exits first or writes none within `timeout`. Blocking, like starting Xvfb always was here.
    private static func displayNumber(of server: BenchChild, within timeout: Duration) -> Int? {
        let fd = server.output.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        var text = ""
        while !text.hasSuffix("\n") {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }  // Xvfb exited
            text.append(Character(UnicodeScalar(byte)))
        }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// CPU time this process has used (user + system).
enum ProcessCPU {
    static func now() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micros = (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000
            + Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec)
        return .microseconds(micros)
    }
}
