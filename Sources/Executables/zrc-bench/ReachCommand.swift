import ArgumentParser
import Foundation

/// Reaching a host across NATs, measured over the NAT laboratory (Tools/natlab.sh): LAN TCP, ICE
/// direct through cone NATs, and the coturn relay between symmetric NATs.
struct ReachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Measure connection set-up, RTT, click latency and throughput for LAN TCP, ICE direct and relay (needs root).",
        discussion: """
            Per path: builds the NAT laboratory (coturn and Mosquitto in a WAN namespace, host and controller each \
            behind a NAT, a LAN link between them), runs the host in its namespace sharing a 1920x1080 Xvfb, pairs a \
            controller over the LAN link, takes the link down for the ICE paths, and measures: connection set-up \
            (ask to connect → usable session; `auto` as users get it, and `mesh`, ICE alone), ping RTT, click to \
            decoded frame on a still screen, and frame throughput during full-screen video-like motion.
            """)

    @Option(help: "Connections timed per preference.") var setups = 20
    @Option(help: "Pings per path.") var pings = 100
    @Option(help: "Clicks per path.") var clicks = 100
    @Option(help: "Seconds of motion watched per path.") var seconds = 5
    @Option(help: "The NAT laboratory script.") var natlab = "Tools/natlab.sh"
    @Option(help: "PseudoTCP window on direct paths, bytes (default: the product's).") var directWindow: Int?
    @Option(help: "Limit the host's access link to this many Mbit/s each way (default: unshaped).") var rate: Int?
    @Option(parsing: .upToNextOption, help: "Paths to measure: lan, direct, relay (default: all).") var paths: [String] = ["lan", "direct", "relay"]

    struct Path {
        let name: String
        let nat: String
        let keepsLAN: Bool
    }

    func validate() throws {
        for path in paths where !["lan", "direct", "relay"].contains(path) { throw ValidationError("--paths takes lan, direct, relay") }
    }

    func run() async throws {
        guard geteuid() == 0 else { throw ValidationError("reach needs root (network namespaces, iptables)") }
        let signals = BenchChild.killChildrenOnSignal()
        defer { withExtendedLifetime(signals) {} }
        let (display, xvfb) = try BenchDisplay.start(width: 1920, height: 1080)
        defer { xvfb.stop() }
        print("zrc-bench reach: display \(display) 1920x1080, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(setups) set-ups, \(pings) pings, \(clicks) clicks per path, \(seconds) s of video-like motion"
            + (rate.map { ", host link \($0) Mbit/s each way" } ?? ", links unshaped"))
        let all = ["lan": Path(name: "LAN TCP", nat: "cone", keepsLAN: true), "direct": Path(name: "ICE direct", nat: "cone", keepsLAN: false),
                   "relay": Path(name: "relay", nat: "symmetric", keepsLAN: false)]
        var rows: [[String]] = []
        for (index, path) in paths.compactMap({ all[$0] }).enumerated() {
            rows.append(try await measure(path, index: index, display: display))
        }
        print("")
        print("path         set-up auto p50/p95 ms   set-up mesh p50/p95 ms   ping p50/p95 ms   click→frame p50/p95 ms   motion updates/s, MB/s   selected")
        for row in rows { print(row.joined(separator: "   ")) }
    }

    private func measure(_ path: Path, index: Int, display: String) async throws -> [String] {
        var lab = try NatLabScript(script: natlab, id: "b\(getpid() % 100_000)\(index)")
        defer { lab.down() }
        try lab.up(nat: path.nat, rateMbit: rate)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-bench-reach-\(getpid())-\(index)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for side in ["host", "controller"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(side), withIntermediateDirectories: true)
        }
        let turn = lab["ZRC_NAT_TURN"]
        let host = try BenchChild("the host", executable: "/usr/sbin/ip", arguments: [
            "netns", "exec", lab["ZRC_NAT_HOST_NS"], BenchChild.selfExecutable, "reach-host", "--display", display,
            "--directory", directory.appendingPathComponent("host").path, "--broker", "mqtt://\(lab["ZRC_NAT_BROKER"])",
            "--stun", "stun:\(turn)", "--relay", "turn://\(lab["ZRC_NAT_TURN_USER"]):\(lab["ZRC_NAT_TURN_PASSWORD"])@\(turn)",
            "--advertise", lab["ZRC_NAT_HOST_LAN_ADDR"],
        ] + (directWindow.map { ["--direct-window", "\($0)"] } ?? []))
        defer { host.stop() }
        guard try await host.nextLine(timeout: .seconds(30)).hasPrefix("port ") else { throw ValidationError("the host did not start") }
        let probe = try BenchChild("the probe", executable: BenchChild.selfExecutable,
                                   arguments: ["probe", "--display", display, "--motion", "--motion-kind", MotionKind.video.rawValue])
        defer { probe.stop() }
        try await probe.waitForLine("ready", timeout: .seconds(20))
        let controller = try BenchChild("the controller", executable: "/usr/sbin/ip", arguments: [
            "netns", "exec", lab["ZRC_NAT_CTL_NS"], BenchChild.selfExecutable, "reach-controller",
            "--directory", directory.appendingPathComponent("controller").path,
        ] + (directWindow.map { ["--direct-window", "\($0)"] } ?? []))
        defer { controller.stop() }
        host.send(line: "invite")
        controller.send(line: try await host.nextLine(timeout: .seconds(20)))
        try await controller.waitForLine("paired", timeout: .seconds(30))
        if !path.keepsLAN { try lab.command("lan-down") }

        func ask(_ command: String, timeout: Duration = .seconds(300)) async throws -> [String] {
            controller.send(line: command)
            return try await controller.nextLine(timeout: timeout).split(separator: " ").map(String.init)
        }
        func number(_ words: [String], _ index: Int) -> Double { index < words.count ? Double(words[index]) ?? .nan : .nan }
        let auto = try await ask("setup \(setups) auto")
        let mesh = path.keepsLAN ? [] : try await ask("setup \(setups) mesh")
        let opened = try await ask("open")
        let ping = try await ask("pings \(pings)")
        let click = try await ask("clicks \(clicks) 150")
        probe.send(line: "motion")
        try await probe.waitForLine("motion", timeout: .seconds(10))
        let busy = try await ask("clicks \(clicks) 150")
        let watch = try await ask("watch \(seconds)")
        probe.send(line: "still")

        let selected = opened.dropFirst(2).joined(separator: " ")
        print("")
        print("\(path.name) (\(path.nat) NATs\(path.keepsLAN ? ", LAN link up" : ", LAN link down")): \(selected)")
        print(String(format: "  set-up, auto (as users get it)   p50 %7.1f ms  p95 %7.1f ms  via %@", number(auto, 1), number(auto, 2),
                     auto.dropFirst(3).joined(separator: " ")))
        if !mesh.isEmpty {
            print(String(format: "  set-up, mesh (ICE alone)         p50 %7.1f ms  p95 %7.1f ms", number(mesh, 1), number(mesh, 2)))
        }
        print(String(format: "  ping RTT                         p50 %7.3f ms  p95 %7.3f ms", number(ping, 1), number(ping, 2)))
        print(String(format: "  click → decoded frame            p50 %7.1f ms  p95 %7.1f ms  (%.0f lost)", number(click, 1), number(click, 2),
                     number(click, 4)))
        print(String(format: "  click → frame during the motion  p50 %7.1f ms  p95 %7.1f ms  (%.0f lost)", number(busy, 1), number(busy, 2),
                     number(busy, 4)))
        print(String(format: "  video-like motion                %.1f updates/s, %.2f MB/s; host queueing at most %.1f ms, path rate %.1f Mbit/s",
                     number(watch, 1), number(watch, 2) / 1e6, number(watch, 3), number(watch, 5) * 8 / 1e6))
        return [path.name.padding(toLength: 10, withPad: " ", startingAt: 0),
                String(format: "%9.1f / %7.1f", number(auto, 1), number(auto, 2)),
                mesh.isEmpty ? String(repeating: " ", count: 19) + "—" : String(format: "%9.1f / %7.1f", number(mesh, 1), number(mesh, 2)),
                String(format: "%6.3f / %6.3f", number(ping, 1), number(ping, 2)),
                String(format: "%8.1f / %7.1f", number(click, 1), number(click, 2)),
                String(format: "%7.1f, %6.2f", number(watch, 1), number(watch, 2) / 1e6), selected]
    }
}
