import ArgumentParser
import Foundation

/// Builds the network laboratory for a profile and measures what it delivers — the round trip
/// (ping) and the rate of one TCP transfer — so the laboratory itself is checked before figures
/// are taken over it.
struct LabCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lab-check", abstract: "Build the network laboratory and measure its round trip and rate (needs root).")

    @Option(help: "Link profile: lan, wifi, dsl, lte or far.")
    var profile = "dsl"

    @Option(help: "Megabytes sent for the rate measurement.")
    var megabytes = 4

    func run() async throws {
        // ping -U: user-to-user time. Plain ping takes the kernel's arrival stamp, which is set
        // before the delay helper holds the packet, and would show no delay on the way in.
        guard let chosen = NetworkLab.Profile.named(profile) else { throw ValidationError("unknown profile \(profile)") }
        let lab = try NetworkLab(profile: chosen, delayHelper: BenchChild.companion("zrc-netdelay"))
        defer { lab.down() }
        try await lab.ready()
        let ping = try NetworkLab.run(["ip"] + lab.inController(["ping", "-U", "-c", "5", "-i", "0.2", "-q", NetworkLab.hostAddress]))
        let rtt = ping.split(separator: "\n").first { $0.contains("min/avg/max") } ?? "no ping summary"
        let rate = try await Self.transferRate(lab: lab, bytes: megabytes << 20)
        print("lab \(chosen.description): ping \(rtt.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?")")
        print(String(format: "lab %@: TCP transfer of %d MiB at %.2f Mbit/s", chosen.name, megabytes, rate * 8 / 1e6))
    }

    /// One TCP transfer from the host's namespace to the controller's, bytes per second.
    static func transferRate(lab: NetworkLab, bytes: Int) async throws -> Double {
        let receiver = try BenchChild("the transfer receiver", executable: "/usr/sbin/ip", arguments: lab.inController([
            "python3", "-c",
            """
            import socket, sys, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("\(NetworkLab.controllerAddress)", 5901)); s.listen(1)
            print("ready", flush=True)
            c, _ = s.accept(); n = 0; start = None
            while True:
                d = c.recv(1 << 16)
                if not d: break
                if start is None: start = time.monotonic()
                n += len(d)
            print(n / (time.monotonic() - start), flush=True)
            """,
        ]))
        defer { receiver.stop() }
        try await receiver.waitForLine("ready", timeout: .seconds(10))
        try NetworkLab.run(["ip"] + lab.inHost([
            "python3", "-c",
            """
            import socket
            s = socket.create_connection(("\(NetworkLab.controllerAddress)", 5901))
            s.sendall(b"x" * \(bytes)); s.close()
            """,
        ]))
        let line = try await receiver.nextLine(timeout: .seconds(120))
        guard let rate = Double(line) else { throw ValidationError("the transfer receiver said \(line)") }
        return rate
    }
}
