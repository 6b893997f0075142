import ArgumentParser
import Foundation

/// A link between two network namespaces made for one benchmark run: the host's and the
/// controller's, joined by a veth pair, each direction limited by `tbf` to the profile's rate and
/// delayed by half the round trip (an NFQUEUE on each side's input held by `zrc-netdelay`: this
/// kernel has no netem). Everything is created with names of its own and removed by `down`; only
/// the addresses 10.77.0.1 (host) and 10.77.0.2 (controller) inside those namespaces are used.
final class NetworkLab {
    struct Profile: Sendable {
        let name: String
        let bitsPerSecond: Double
        let roundTripMillis: Double

        static let all: [Profile] = [
            Profile(name: "lan", bitsPerSecond: 1e9, roundTripMillis: 1),
            Profile(name: "wifi", bitsPerSecond: 50e6, roundTripMillis: 10),
            Profile(name: "dsl", bitsPerSecond: 10e6, roundTripMillis: 40),
            Profile(name: "lte", bitsPerSecond: 5e6, roundTripMillis: 80),
            Profile(name: "far", bitsPerSecond: 20e6, roundTripMillis: 200),
        ]

        static func named(_ name: String) -> Profile? { all.first { $0.name == name } }

        var description: String {
            let rate = bitsPerSecond >= 1e9 ? "\(Int(bitsPerSecond / 1e9)) Gbit/s" : "\(Int(bitsPerSecond / 1e6)) Mbit/s"
            return "\(name) (\(rate), \(Int(roundTripMillis)) ms)"
        }
    }

    static let hostAddress = "10.77.0.1"
    static let controllerAddress = "10.77.0.2"

    let profile: Profile
    let hostNamespace: String
    let controllerNamespace: String
    private let hostLink: String
    private let controllerLink: String
    private var delays: [BenchChild] = []
    private var isDown = false

    /// Builds the lab; throws with the failing command's words if the machine cannot (not root,
    /// no veth, no NFQUEUE).
    init(profile: Profile, delayHelper: String) throws {
        guard geteuid() == 0 else { throw ValidationError("the network laboratory needs root (network namespaces, tc, iptables)") }
        self.profile = profile
        let id = "\(getpid() % 100_000)"
        hostNamespace = "zrc-\(id)-h"
        controllerNamespace = "zrc-\(id)-c"
        hostLink = "zh\(id)"
        controllerLink = "zc\(id)"
        do {
            try build(delayHelper: delayHelper)
        } catch {
            down()
            throw error
        }
    }

    private func build(delayHelper: String) throws {
        try Self.run(["ip", "netns", "add", hostNamespace])
        try Self.run(["ip", "netns", "add", controllerNamespace])
        try Self.run(["ip", "link", "add", hostLink, "netns", hostNamespace, "type", "veth", "peer", "name", controllerLink,
                      "netns", controllerNamespace])
        // Per-direction shaping: the rate on each side's way out, and a queue of 100 ms at that rate
        // (a router's buffer), never below 64 KiB.
        let bytesPerSecond = profile.bitsPerSecond / 8
        let burst = max(32 * 1024, Int(bytesPerSecond / 250 * 2))
        let limit = max(64 * 1024, Int(bytesPerSecond * 0.1))
        for (namespace, link, address) in [(hostNamespace, hostLink, Self.hostAddress), (controllerNamespace, controllerLink, Self.controllerAddress)] {
            try Self.run(["ip", "-n", namespace, "addr", "add", "\(address)/30", "dev", link])
            try Self.run(["ip", "-n", namespace, "link", "set", "lo", "up"])
            try Self.run(["ip", "-n", namespace, "link", "set", link, "up"])
            // Segmentation offloads would hand tbf 64 KiB super-packets: the shaping is only exact
            // on wire-sized packets. (Best effort: a kernel without the switch shapes coarser.)
            _ = try? Self.run(["ip", "netns", "exec", namespace, "ethtool", "-K", link, "tso", "off", "gso", "off", "gro", "off"])
            try Self.run(["tc", "-n", namespace, "qdisc", "add", "dev", link, "root", "tbf", "rate", "\(Int(profile.bitsPerSecond))bit",
                          "burst", "\(burst)", "limit", "\(limit)"])
            // Without --queue-bypass: if the delay helper is gone, packets are dropped and the run
            // fails loudly instead of measuring an undelayed link.
            try Self.run(["ip", "netns", "exec", namespace, "iptables", "-A", "INPUT", "-i", link, "-j", "NFQUEUE", "--queue-num", "0"])
            let delay = try BenchChild("the delay helper in \(namespace)", executable: "/usr/sbin/ip",
                                       arguments: ["netns", "exec", namespace, delayHelper, "0", "\(profile.roundTripMillis / 2)"])
            delays.append(delay)
        }
    }

    /// Waits until both delay helpers are bound to their queues.
    func ready() async throws {
        for delay in delays { try await delay.waitForLine("ready", timeout: .seconds(10)) }
    }

    /// `arguments` run inside the host's (or the controller's) namespace.
    func inHost(_ arguments: [String]) -> [String] { ["netns", "exec", hostNamespace] + arguments }
    func inController(_ arguments: [String]) -> [String] { ["netns", "exec", controllerNamespace] + arguments }

    /// Removes everything the lab made (deleting a namespace deletes its veth end, qdisc and rules).
    func down() {
        guard !isDown else { return }
        isDown = true
        for delay in delays { delay.stop() }
        delays = []
        _ = try? Self.run(["ip", "netns", "del", hostNamespace])
        _ = try? Self.run(["ip", "netns", "del", controllerNamespace])
    }

    deinit { down() }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ValidationError("cannot run \(arguments[0]): \(error.localizedDescription) (Tools/install-deps.sh installs it)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("`\(arguments.joined(separator: " "))` failed: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return text
    }
}
