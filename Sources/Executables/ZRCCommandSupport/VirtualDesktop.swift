public import Foundation
public import Logging
import ZRCStorage
import ZRCSystem

/// `zrc-host serve --virtual`: an X server of the host's own (Xvfb) with a session in it, for a
/// machine without a screen, torn down when the host stops.
///
/// - **Access:** Xvfb takes a fresh MIT-MAGIC-COOKIE-1 from an X authority file (mode 0600, in a
///   private directory) and listens on no TCP port; only clients that read that file (this user)
///   can connect. The file's one entry is FamilyWild, so it matches whatever display number Xvfb
///   picks (`-displayfd`).
/// - **Session:** the user's `~/.xsession` when there is one; otherwise openbox (a light window
///   manager from Debian: windows get frames, moving and resizing, and its right-click menu opens a
///   terminal) and an xterm.
public final class VirtualDesktop: Sendable {
    public let displayName: String
    public let width: Int
    public let height: Int
    /// The X authority file clients of this desktop need (`XAUTHORITY`).
    public let authorityFile: URL
    /// The desktop's MIT-MAGIC-COOKIE-1, for this process's own connections (`X11Connection`'s
    /// `cookie`): the environment of a process with threads is not changed.
    public let cookie: [UInt8]
    /// What runs in it, for people.
    public let sessionDescription: String
    private let directory: URL
    private let server: ChildProcess
    /// The inode of the listening socket Xvfb made, so that only that file is removed when Xvfb
    /// could not remove it itself (another server may have the same path by then).
    private let socketInode: UInt64?
    private let session: [ChildProcess]

    /// Starts Xvfb at `width`×`height` and the session; `runtime` is a private directory of this
    /// user (the control socket's), where the authority file and the logs go. This process's
    /// environment is left alone (connect with `cookie`). `windowManagerReady` says whether a
    /// window manager manages the display named, given its cookie (the terminal starts once it does).
    public init(width: Int, height: Int, runtime: URL, random: (Int) -> [UInt8],
                windowManagerReady: @escaping (String, [UInt8]) -> Bool, logger: Logger) async throws(CommandError) {
        self.width = width
        self.height = height
        directory = runtime.appendingPathComponent("virtual-\(getpid())")
        do {
            try PrivateFile.ensurePrivateDirectory(directory)
        } catch {
            throw CommandError(.storage, "cannot make \(directory.path): \(error)")
        }
        authorityFile = directory.appendingPathComponent("xauthority")
        let cookie = random(16)
        self.cookie = cookie
        do {
            try PrivateFile.writeAtomically(Self.authorityEntry(cookie: cookie), to: authorityFile, tighteningDirectory: false)
        } catch {
            throw CommandError(.storage, "cannot write \(authorityFile.path): \(error)")
        }
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw CommandError(.failure, "cannot make a pipe: \(SystemCall.describe(errno))") }
        defer { close(descriptors[0]) }
        let serverLog = directory.appendingPathComponent("xvfb.log")
        let spawned: ChildProcess
        do {
            // -noreset: otherwise the server resets (and forgets everything) when its last client leaves.
            spawned = try ChildProcess(["Xvfb", "-displayfd", "3", "-auth", authorityFile.path, "-screen", "0", "\(width)x\(height)x24",
                                        "-nolisten", "tcp", "-noreset"],
                                       environment: Self.sessionEnvironment(from: ProcessInfo.processInfo.environment), log: serverLog,
                                       passing: [(descriptors[1], 3)])
        } catch {
            close(descriptors[1])
            try? FileManager.default.removeItem(at: directory)
            throw CommandError(.failure, "cannot start Xvfb (install it: apt install xvfb): \(error.message)")
        }
        close(descriptors[1])
        server = spawned
        guard let number = Self.readDisplayNumber(descriptors[0], timeout: .seconds(15)) else {
            await spawned.stop()
            let log = (try? String(contentsOf: serverLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw CommandError(.failure, "Xvfb did not start: \(log.split(separator: "\n").suffix(3).joined(separator: " "))")
        }
        displayName = ":\(number)"
        socketInode = Self.inode(of: Self.socketPath(number))
        // The session's programs: only an allow-list of this process's environment, pointed at the
        // desktop. Nothing that leads to the real desktop (WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS,
        // SSH_AUTH_SOCK, XDG_RUNTIME_DIR with its sockets, …) reaches what a controller drives there.
        var environment = Self.sessionEnvironment(from: ProcessInfo.processInfo.environment)
        environment["DISPLAY"] = displayName
        environment["XAUTHORITY"] = authorityFile.path
        let sessionLog = directory.appendingPathComponent("session.log")
        let xsession = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".xsession")
        var started: [ChildProcess] = []
        if FileManager.default.fileExists(atPath: xsession.path) {
            sessionDescription = "~/.xsession"
            do {
                started.append(try ChildProcess(["/bin/sh", xsession.path], environment: environment, log: sessionLog))
            } catch {
                logger.warning("~/.xsession did not start: \(error.message)")
            }
        } else {
            var parts: [String] = []
            for (program, arguments) in [("openbox", [String]()), ("xterm", ["-geometry", "100x30+40+40"])] {
                if program == "xterm", !parts.isEmpty {
                    // A window mapped while the window manager starts up can stay unmapped.
                    let deadline = ContinuousClock.now + .seconds(10)
                    while !windowManagerReady(displayName, cookie), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
                }
                do {
                    started.append(try ChildProcess([program] + arguments, environment: environment, log: sessionLog))
                    parts.append(program)
                } catch {
                    logger.warning("the virtual desktop has no \(program) (apt install \(program)): \(error.message)")
                }
            }
            sessionDescription = parts.isEmpty ? "an empty desktop" : parts.joined(separator: " and ")
        }
        session = started
    }

    /// Stops the session, then the X server, and removes the authority file and logs. An X server
    /// killed (it did not end within its grace on a busy machine) leaves its socket and lock file
    /// behind; those are removed here when they are still the ones it made.
    public func stop() async {
        // The session's programs at once: each may take its whole grace on a busy machine.
        await withTaskGroup(of: Void.self) { group in
            for process in session { group.addTask { await process.stop() } }
        }
        await server.stop(grace: .seconds(10))
        if let number = Int(displayName.dropFirst()) {
            let socket = Self.socketPath(number)
            if let made = socketInode, Self.inode(of: socket) == made { unlink(socket) }
            let lock = "/tmp/.X\(number)-lock"
            let owner = (try? String(contentsOfFile: lock, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if owner == server.pid { unlink(lock) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func socketPath(_ number: Int) -> String { "/tmp/.X11-unix/X\(number)" }

    /// The inode of the file at `path` (not followed), nil when there is none.
    static func inode(of path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// The variables a desktop session needs and that lead nowhere else: who and where the user
    /// is, how to find programs, language and time zone.
    static let sessionVariables: Set<String> = ["HOME", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE", "TZ"]

    static func sessionEnvironment(from environment: [String: String]) -> [String: String] {
        environment.filter { sessionVariables.contains($0.key) || $0.key.hasPrefix("LC_") }
    }

    /// One X authority entry: FamilyWild (any address, any display), MIT-MAGIC-COOKIE-1.
    static func authorityEntry(cookie: [UInt8]) -> [UInt8] {
        func counted(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        return [0xFF, 0xFF] + counted([]) + counted([]) + counted(Array("MIT-MAGIC-COOKIE-1".utf8)) + counted(cookie)
    }

    /// The display number Xvfb writes to its -displayfd (a line of digits), or nil when it wrote
    /// none before exiting or within `timeout`.
    static func readDisplayNumber(_ descriptor: Int32, timeout: Duration) -> Int? {
        var text = ""
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 32)
        while ContinuousClock.now < deadline, !text.contains("\n") {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }  // Xvfb exited
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
