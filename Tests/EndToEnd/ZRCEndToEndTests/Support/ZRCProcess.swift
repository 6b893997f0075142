import Foundation
import Synchronization
import ZRCTestSupport

/// A real `zrc-host` or `zrc-ctl` process with captured output.
final class ZRCProcess: Sendable {
    let process: Process
    private let output = CapturedOutput()

    /// `stdin`: written to the process's standard input, which is then closed (else /dev/null).
    init(executable: URL, arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice
        self.process = process
        // Read by threads of their own (`PipeDrain`: libdispatch's read sources crashed the
        // test process); each pipe ends once the process and its children closed it.
        PipeDrain.start(stdout.fileHandleForReading, name: "zrc-test-stdout",
                        received: { [output] data in output.append(stdout: String(decoding: data, as: UTF8.self)) },
                        ended: { [output] in output.ended(stdout: true) })
        PipeDrain.start(stderr.fileHandleForReading, name: "zrc-test-stderr",
                        received: { [output] data in output.append(stderr: String(decoding: data, as: UTF8.self)) },
                        ended: { [output] in output.ended(stdout: false) })
        try process.run()
        if let input, let stdin {
            // Small texts (invites, codes) fit the pipe's buffer: the write does not block.
            try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
    }

    var stdout: String { output.text.stdout }
    var stderr: String { output.text.stderr }
    var isRunning: Bool { process.isRunning }

    /// Waits for the process to exit; nil if it is still running after `timeout`.
    /// Runs `body`, then terminates the process and waits for it, also when `body` throws.
    func terminatingAfter<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await terminate()
            return result
        } catch {
            await terminate()
            throw error
        }
    }

    func waitForExit(timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else { return nil }
        await drained()
        return process.terminationStatus
    }

    /// Waits until both pipes were read to their end (on a loaded machine
    /// they can run well after the exit: a fixed pause lost a short output once). Bounded, since a
    /// child the process left behind may still hold a pipe open.
    private func drained() async {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !output.bothEnded, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until stdout or stderr contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(20)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if stdout.contains(text) || stderr.contains(text) { return true }
            if !process.isRunning {
                await drained()
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return stdout.contains(text) || stderr.contains(text)
    }

    /// SIGKILL, as when the machine loses power or the OOM killer strikes: no cleanup runs.
    func kill9() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = await waitForExit(timeout: .seconds(30))
    }

    func terminate() async {
        if process.isRunning { process.terminate() }
        // Generous: a host stopping a virtual desktop on a busy machine gives each program a grace.
        _ = await waitForExit(timeout: .seconds(30))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Output collected from a process's pipes by their readers (`PipeDrain`).
final class CapturedOutput: Sendable {
    private let state = Mutex<(stdout: String, stderr: String)>(("", ""))
    private let ends = Mutex<(stdout: Bool, stderr: Bool)>((false, false))

    /// Both pipes were read to their end.
    var bothEnded: Bool { ends.withLock { $0.stdout && $0.stderr } }

    func ended(stdout: Bool) { ends.withLock { if stdout { $0.stdout = true } else { $0.stderr = true } } }

    var text: (stdout: String, stderr: String) { state.withLock { $0 } }

    func append(stdout text: String) { state.withLock { $0.stdout += text } }

    func append(stderr text: String) { state.withLock { $0.stderr += text } }
}
