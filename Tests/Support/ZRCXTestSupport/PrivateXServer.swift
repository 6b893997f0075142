import Foundation
import Testing

/// An extra Xvfb with settings the shared test display lacks (no MIT-SHM, another depth), started
/// and stopped by one test. Inside Tools/with-test-services.sh, a server left behind by a crashed
/// test is swept with the rest of the environment.
public final class PrivateXServer: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` set in init; the only calls made on
    // `process` after that (processIdentifier, waitUntilExit in deinit) are thread-safe.
    public let display: String
    private let process: Process
    private let directory: URL

    /// Starts `Xvfb` with `arguments` on a free display number (Xvfb picks it: -displayfd).
    /// Blocks while Xvfb starts (up to 10 s): from async code use `start`.
    public init(_ arguments: [String]) throws {
        do {
            (display, process, directory) = try Self.launch(arguments)
        } catch {
            try #require(Bool(false), "\(error)")
            throw error
        }
    }

    private init(launched: (String, Process, URL)) {
        (display, process, directory) = launched
    }

    /// `init` on a thread of its own, so the test does not hold one of Swift's few cooperative
    /// threads while Xvfb starts (a loaded machine takes seconds; several tests at once blocked
    /// every thread the hosts under test needed).
    public static func start(_ arguments: [String]) async throws -> PrivateXServer {
        let launched: Result<(String, Process, URL), any Error> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { try launch(arguments) }) }.start()
        }
        switch launched {
        case .success(let parts): return PrivateXServer(launched: parts)
        case .failure(let error):
            try #require(Bool(false), "\(error)")
            throw error
        }
    }

    private struct LaunchError: Error, CustomStringConvertible {
        let description: String
    }

    private static func launch(_ arguments: [String]) throws -> (String, Process, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-xvfb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let numberFile = directory.appendingPathComponent("display")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // exec: the Process's pid is Xvfb's own, so terminate() reaches the server.
        // -noreset for the reason given in Tools/with-test-services.sh.
        process.arguments = ["-c", "exec Xvfb -displayfd 3 -nolisten tcp -noreset \"$@\" 3>'\(numberFile.path)' 2>/dev/null",
                             "Xvfb"] + arguments
        try process.run()
        var number = ""
        for _ in 0..<100 where number.isEmpty {
            number = ((try? String(contentsOf: numberFile, encoding: .utf8)) ?? "").filter(\.isNumber)
            if number.isEmpty {
                guard process.isRunning else {
                    throw LaunchError(description: "Xvfb \(arguments.joined(separator: " ")) exited during startup")
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        if number.isEmpty {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw LaunchError(description: "Xvfb \(arguments.joined(separator: " ")) reported no display number within 10 s")
        }
        return (":\(number)", process, directory)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the server (again: nothing) and removes the socket and lock file it leaves while the
    /// lock is still its own — killed servers' sockets once filled a machine's /tmp/.X11-unix.
    /// SIGKILL, not terminate(): Foundation spawns children with the calling thread's signal
    /// mask, and Swift concurrency's worker threads block SIGTERM, so Xvfb never sees a SIGTERM.
    public func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGKILL)
        process.waitUntilExit()
        let number = display.dropFirst()
        let lock = "/tmp/.X\(number)-lock"
        let owner = (try? String(contentsOfFile: lock, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard owner == pid else { return }
        unlink("/tmp/.X11-unix/X\(number)")
        unlink(lock)
    }

    /// Runs an X client tool against this server; fails with its output if it fails.
    public func run(_ tool: String, _ arguments: [String]) async throws {
        try await XTool.run(tool, arguments, display: display)
    }
}

/// X client tools (from x11-xserver-utils / x11-utils) run by tests.
///
/// A tool runs on a thread of its own while the calling task waits: Swift's cooperative pool has
/// as many threads as cores (two here), and a test blocked in `waitUntilExit` would hold one that
/// the host or controller under test needs.
public enum XTool {
    /// Runs `tool` (found on PATH) against `display` (nil: `$DISPLAY`); fails with its output if it fails.
    public static func run(_ tool: String, _ arguments: [String], display: String? = nil) async throws {
        let (status, text) = try await output(tool, arguments, display: display)
        try #require(status == 0,
                     "\(tool) \(arguments.joined(separator: " ")) exited with \(status): \(text) (Tools/install-deps.sh installs it)")
    }

    /// Starts an X client that forks into the background to keep serving (xclip and xsel owning a
    /// selection), with `input` (a file) as its standard input. It gets none of this process's
    /// descriptors: a daemon holding another test's output pipe would keep that test waiting
    /// for its end. It ends with its X server.
    public static func startDaemon(_ command: [String], input: String? = nil, display: String) async throws {
        let launcher = "import subprocess, sys; sys.exit(subprocess.Popen(sys.argv[2:], stdin=open(sys.argv[1] or '/dev/null', 'rb'), "
            + "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True).wait())"
        let result = try await output("python3", ["-c", launcher, input ?? ""] + command, display: display)
        try #require(result.status == 0, "\(command.joined(separator: " ")) failed: \(result.text)")
    }

    /// Runs `tool` and returns its exit status and output, whatever they are (for polling).
    public static func output(_ tool: String, _ arguments: [String], display: String? = nil) async throws -> (status: Int32, text: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try outputBlocking(tool, arguments, display: display) })
            }.start()
        }
    }

    private static func outputBlocking(_ tool: String, _ arguments: [String], display: String?) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = (display.map { ["DISPLAY=\($0)"] } ?? []) + [tool] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
