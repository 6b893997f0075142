import Foundation
import ZRCXTestSupport

/// What the viewer tests share: a host sharing a private X display that shows the test pattern
/// (drawn by a test X client, which also records the input it receives), and a controller paired
/// with it as `desk`.
final class ViewerRig {
    let env: EndToEndEnvironment
    let display: PrivateXServer
    let client: TestXClient
    let hostKey: String
    let controllerKey: String
    private(set) var host: ZRCProcess
    let port: UInt16

    init() async throws {
        env = try EndToEndEnvironment()
        display = try await PrivateXServer.start(["-screen", "0", "\(TestPattern.width)x\(TestPattern.height)x24"])
        client = try TestXClient(display: display.display)
        let halfWidth = TestPattern.width / 2, halfHeight = TestPattern.height / 2
        client.fill(x: 0, y: 0, width: halfWidth, height: halfHeight, pixel: TestPattern.topLeft)
        client.fill(x: halfWidth, y: 0, width: halfWidth, height: halfHeight, pixel: TestPattern.topRight)
        client.fill(x: 0, y: halfHeight, width: halfWidth, height: halfHeight, pixel: TestPattern.bottomLeft)
        client.fill(x: halfWidth, y: halfHeight, width: halfWidth, height: halfHeight, pixel: TestPattern.bottomRight)
        _ = client.takeEvents()
        hostKey = "host-\(env.tag)"
        controllerKey = "ctl-\(env.tag)"
        let (host, address) = try await env.startHost(keyID: hostKey, extra: ["--display", display.display, "--no-indicator"])
        self.host = host
        guard let port = address.split(separator: ":").last.flatMap({ UInt16($0) }) else { throw SetupError("no port in \(address)") }
        self.port = port
        let invite = try await env.invite(keyID: hostKey)
        let pair = try await env.pair(invite: invite, ["--name", "desk", "--key-id", controllerKey], role: "controller")
        guard pair.status == 0 else { throw SetupError("pairing failed: \(pair.stderr)") }
    }

    /// The viewer as a shell command line for a terminal to run; its stderr goes to `log`, its
    /// exit status to `status`, and the terminal's tty settings before and after to `stty`. The
    /// shell stays (sleeping) afterwards: a terminal whose program ended changes its own modes
    /// (tmux marks a dead pane and hides its cursor), which must not be mistaken for the viewer's.
    func viewCommand(_ arguments: [String], files: ViewerFiles) -> String {
        let ctl = env.binaries.appendingPathComponent("zrc-ctl").path
        let words = ([ctl, "view", "desk", "--key-id", controllerKey, "--log-level", "info"] + arguments).map { "'\($0)'" }
        return "stty -g > '\(files.sttyBefore.path)'; \(words.joined(separator: " ")) 2> '\(files.log.path)'; "
            + "echo $? > '\(files.status.path)'; stty -g > '\(files.sttyAfter.path)'; exec sleep 3600"
    }

    func files(_ name: String) -> ViewerFiles { ViewerFiles(root: env.root, name: name) }

    /// Stops the host (SIGTERM), as when its machine goes away.
    func stopHost() async { await host.terminate() }

    /// Starts the host again on the same port, with the same key or a new one.
    func restartHost(keyID: String? = nil) async throws {
        let (host, _) = try await env.startHost(keyID: keyID ?? hostKey, port: port, extra: ["--display", display.display, "--no-indicator"])
        self.host = host
    }

    func close() async {
        await host.terminate()
        env.cleanUp()
    }
}

/// Files a viewer run leaves behind for the test to read.
struct ViewerFiles {
    let log: URL, status: URL, sttyBefore: URL, sttyAfter: URL

    init(root: URL, name: String) {
        log = root.appendingPathComponent("\(name).log")
        status = root.appendingPathComponent("\(name).status")
        sttyBefore = root.appendingPathComponent("\(name).stty-before")
        sttyAfter = root.appendingPathComponent("\(name).stty-after")
    }

    func read(_ url: URL) -> String { ((try? String(contentsOf: url, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The viewer's exit status once it has exited, waiting up to `timeout`.
    func exitStatus(within timeout: Duration) async -> Int? {
        await Wait.until(timeout) { Int(read(status)) }
    }
}

enum Wait {
    /// Polls `probe` every 100 ms until it gives a value or `timeout` passes.
    static func until<T>(_ timeout: Duration, _ probe: () throws -> T?) async -> T? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let value = try? probe() { return value }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return try? probe()
    }
}
