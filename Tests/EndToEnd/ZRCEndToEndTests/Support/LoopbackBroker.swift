import Foundation

/// A Mosquitto broker of the test's own on a free loopback port (plain MQTT, which ZRC allows
/// only to loopback), for host and controller on one machine; `stop()` ends it.
final class LoopbackBroker: Sendable {
    let port: UInt16
    let directory: URL
    private let process: ZRCProcess

    var url: String { "mqtt://127.0.0.1:\(port)" }

    init() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
            throw SetupError("/usr/sbin/mosquitto is missing: Tools/install-deps.sh --with-test installs it")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-broker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A port the kernel hands out is free once closed; another test taking it meanwhile makes
        // Mosquitto fail, which the wait below reports.
        port = try RawSocket.freeLoopbackPort()
        let config = "per_listener_settings false\nallow_anonymous true\nuser root\npersistence false\nlistener \(port) 127.0.0.1\n"
        try Data(config.utf8).write(to: directory.appendingPathComponent("mosquitto.conf"))
        process = try ZRCProcess(executable: URL(fileURLWithPath: "/usr/sbin/mosquitto"),
                                 arguments: ["-c", directory.appendingPathComponent("mosquitto.conf").path, "-v"],
                                 environment: ProcessInfo.processInfo.environment)
        let port = port
        guard await Wait.until(.seconds(30), { RawSocket.acceptsConnections(port: port) ? true : nil }) == true else {
            kill(process.process.processIdentifier, SIGKILL)
            throw SetupError("mosquitto did not listen on 127.0.0.1:\(port): \(process.stderr.suffix(600))")
        }
    }

    func stop() async {
        // SIGKILL: Foundation's Process hands the child the spawning thread's signal mask, in
        // which Swift's threads block SIGTERM.
        kill(process.process.processIdentifier, SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(30))
        try? FileManager.default.removeItem(at: directory)
    }
}
