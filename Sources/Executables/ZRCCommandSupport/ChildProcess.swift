public import Foundation
import ZRCSystem

/// A program the host starts and owns (the virtual desktop's X server, window manager, terminal):
/// spawned with posix_spawn into a process group of its own, with default signal handling and an
/// empty signal mask, and no descriptor of this process except the ones given.
///
/// Not Foundation's `Process`: it spawns children with the calling thread's signal mask, and Swift
/// concurrency's threads block SIGTERM, so a child would never see the SIGTERM that stops it;
/// and every descriptor this process has open without close-on-exec would leak into it.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let name: String

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does
    /// not import (it sits behind a feature macro), looked up at run time.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Starts `arguments[0]` (found on PATH) with `environment`; its output goes to `log` (nil:
    /// /dev/null). `passing` maps a descriptor of this process to the number the child gets.
    public init(_ arguments: [String], environment: [String: String], log: URL? = nil, passing: [(Int32, Int32)] = []) throws(CommandError) {
        name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = log?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        for (from, to) in passing { posix_spawn_file_actions_adddup2(&actions, from, to) }
        guard let closeFrom = Self.addCloseFrom else {
            throw CommandError(.internal, "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or newer is needed)")
        }
        _ = closeFrom(&actions, 3 + Int32(passing.count))
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // Its own process group: stopping it reaches what it started (a session script's programs).
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw CommandError(.failure, "cannot start \(arguments[0]): \(SystemCall.describe(result))") }
        self.pid = pid
    }

    /// Whether it still runs. It is never reaped here: an ended program stays a zombie until
    /// `stop` reaps it, so its process group ID cannot be reused by then.
    public var isRunning: Bool {
        var info = siginfo_t()
        // WNOWAIT: look without reaping. si_pid stays 0 while the child has not ended.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
        return info._sifields._sigchld.si_pid == 0
    }

    /// SIGTERM to its process group, SIGKILL after `grace`; returns once it has ended and is
    /// reaped. What the group started and left behind (a session script's programs) is killed
    /// while the program is still unreaped — its zombie keeps the group ID from being reused, so
    /// the last SIGKILL can only reach this group.
    public func stop(grace: Duration = .seconds(3)) async {
        kill(-pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        _ = try? SystemCall.retrying("waitpid") { waitpid(pid, &status, 0) }
    }
}
