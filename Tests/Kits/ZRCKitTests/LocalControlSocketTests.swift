import Foundation
import Logging
import Testing
import ZRCNetworking
import ZRCTestSupport

/// The host's control socket trusts only this user: its directory is checked without following
/// links, and both ends check the other's user ID with SO_PEERCRED.
@Suite struct LocalControlSocketTests {
    struct Echo: Codable, Sendable, Equatable { var text: String }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-sock-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// Serves echo requests on `socket` for the duration of `body`, then stops and waits.
    static func serving<T>(_ socket: URL, log: LogCapture, _ body: () async throws -> T) async throws -> T {
        let (ready, readySink) = AsyncStream<Void>.makeStream()
        let server = Task {
            try await LocalControlSocket.serve(at: socket, logger: log.logger, onReady: { readySink.finish() }) { (request: Echo) in
                Echo(text: "echo " + request.text)
            }
        }
        for await _ in ready {}
        defer { server.cancel() }
        let result = try await body()
        server.cancel()
        _ = await server.result
        return result
    }

    @Test func aRequestOfThisUserIsAnswered() async throws {
        let socket = try Self.directory().appendingPathComponent("host.sock")
        let reply = try await Self.serving(socket, log: LogCapture()) {
            try await LocalControlSocket.send(Echo(text: "hi"), to: socket, expecting: Echo.self)
        }
        #expect(reply == Echo(text: "echo hi"))
        #expect(!FileManager.default.fileExists(atPath: socket.path), "removed when the server stops")
    }

    /// Another user's process (here `nobody`, through setpriv) may reach the socket only if the
    /// file modes let it; even then the server refuses it by its user ID.
    @Test func aClientOfAnotherUserIsRefusedByItsUserID() async throws {
        try #require(getuid() == 0, "needs root to run a client as another user")
        // Directly in /tmp: the test environment's own TMPDIR is private to us, so `nobody`
        // could not even reach the socket there.
        let directory = URL(fileURLWithPath: "/tmp/zrc-sock-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("host.sock")
        let log = LogCapture()
        try await Self.serving(socket, log: log) {
            // Open the way on purpose, so only the credential check stands between them.
            chmod(directory.path, 0o711)
            chmod(socket.path, 0o666)
            let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                try:
                    s.sendall(b'{"text":"sneaky"}\\n')
                    print(repr(s.recv(100)))
                except OSError:  # reset or broken pipe: the server closed on us
                    print("reset")
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script, socket.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(["b''", "reset"].contains(text.trimmingCharacters(in: .whitespacesAndNewlines)), "no answer for another user: \(text)")
            #expect(await log.waitFor("refused a client running as user 65534"))
            chmod(directory.path, 0o700)
        }
    }

    @Test func aDirectoryThatIsALinkIsRefused() async throws {
        let real = try Self.directory()
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-link-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        defer { try? FileManager.default.removeItem(at: link) }
        let error = await #expect(throws: (any Error).self) {
            try await LocalControlSocket.serve(at: link.appendingPathComponent("host.sock"), logger: LogCapture().logger) { (request: Echo) in request }
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("symbolic link"))
    }

    @Test func aSocketThatIsNotOursIsNotTrusted() async throws {
        try #require(getuid() == 0, "needs root to give a file to another user")
        let socket = try Self.directory().appendingPathComponent("host.sock")
        try await Self.serving(socket, log: LogCapture()) {
            chown(socket.path, 65534, 65534)
            let error = await #expect(throws: LocalControlSocket.Failure.self) {
                _ = try await LocalControlSocket.send(Echo(text: "hi"), to: socket, expecting: Echo.self)
            }
            #expect(error?.description.contains("not a socket of yours") == true, "\(String(describing: error))")
        }
    }
}
