import Foundation

/// Runs a short command with posix_spawn and waitpid, output through files, and no other
/// descriptor of this process inherited. For tmux, whose client forks a server: Foundation's
/// Process on Linux sometimes never notices that such a client exited (it stays a zombie and
/// waitUntilExit never returns), and a pipe would stay open in the server.
enum Spawn {
    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not
    /// import (it sits behind a feature macro), looked up at run time.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// `stdin`: the command's standard input (else /dev/null).
    static func run(_ arguments: [String], environment: [String: String], stdin: String? = nil) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory
        let outputFile = directory.appendingPathComponent("spawn-\(UUID().uuidString).out").path
        let errorFile = directory.appendingPathComponent("spawn-\(UUID().uuidString).err").path
        let inputFile = directory.appendingPathComponent("spawn-\(UUID().uuidString).in").path
        defer {
            unlink(outputFile)
            unlink(errorFile)
            unlink(inputFile)
        }
        if let stdin { try Data(stdin.utf8).write(to: URL(fileURLWithPath: inputFile)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin == nil ? "/dev/null" : inputFile, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of this process may leak into the child: tmux's client forks a server that
        // lives on, and an inherited socket of another test (a host's connection) would stay open
        // in it after the test closed it.
        guard let closeFrom = Self.addCloseFrom else {
            throw SetupError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or newer is needed)")
        }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // An empty signal mask and default handlers: the test runner's threads block signals the
        // spawned programs must see.
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SetupError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SetupError("waitpid for \(arguments[0]) failed: \(String(cString: strerror(errno)))") }
        }
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (exitStatus, read(outputFile), read(errorFile))
    }

    /// `run` on a thread of its own, so a test's await does not hold one of Swift's few
    /// cooperative threads while the command runs.
    static func runOffPool(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                           stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try run(arguments, environment: environment, stdin: stdin))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
