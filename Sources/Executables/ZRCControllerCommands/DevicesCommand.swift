import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCStorage

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the hosts this controller is paired with (with --online: which answer now), or with --scan the ZRC hosts on this LAN.",
        discussion: """
            --online probes every paired host in parallel — its addresses, the LAN and the rendezvous, as a \
            session would — and answers within --deadline (default 2s) however many hosts are away: each \
            is ONLINE with the path and round trip, or OFFLINE with the reason.
            """)

    @OptionGroup var options: ControllerOptions

    @Flag(help: "List the ZRC hosts announcing themselves on this LAN (mDNS, needs avahi-daemon), paired or not.")
    var scan = false

    @Option(help: "How long --scan listens, e.g. 2s or 500ms (0.1s…60s).")
    var scanTime: String = "2s"

    @Flag(help: "Probe every paired host now (in parallel): ONLINE with path and round trip, or OFFLINE with the reason.")
    var online = false

    @Option(help: "How long --online waits in all, e.g. 2s or 500ms (0.1s…60s).")
    var deadline: String = "2s"

    @Flag(help: "Print the list as JSON (for scripts; the shape is in the README).")
    var json = false

    func validate() throws {
        if online && scan { throw ValidationError("--online probes the paired hosts, --scan lists the LAN: choose one") }
        guard let wait = DurationText.duration(deadline), wait >= .milliseconds(100), wait <= .seconds(60) else {
            throw ValidationError("--deadline `\(deadline)` is not a duration between 0.1s and 60s")
        }
        guard let duration = DurationText.duration(scanTime), duration >= .milliseconds(100), duration <= .seconds(60) else {
            throw ValidationError("--scan-time `\(scanTime)` is not a duration between 0.1s and 60s")
        }
    }

    func run() async throws {
        if scan { return try await LanScan(options: options, duration: DurationText.duration(scanTime) ?? .seconds(2), json: json).run() }
        if online { return try await OnlineDevices(options: options, deadline: DurationText.duration(deadline) ?? .seconds(2), json: json).run() }
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let crypto = try Identity.makeCrypto()
            let known: [KnownHost]
            do {
                known = try await context.knownHosts.all()
            } catch let error as StorageError {
                throw CommandError(.storage, error.description)
            }
            let hosts = known.map {
                KnownHostRow(name: $0.name, hostName: $0.hostName, fingerprint: KeyDerivations.fingerprint(of: $0.publicKey, crypto: crypto),
                             publicKey: $0.publicKey.hex, addresses: $0.addresses, pairedAt: $0.pairedAt, lastSeen: OrNull($0.lastSeen))
            }
            if json { return try JSONOutput.line(["hosts": hosts]) }
            if hosts.isEmpty {
                Console.line("No paired hosts. Pair with `zrc-ctl pair --name NAME` and paste an invite from `zrc-host pair` on the host.")
                return
            }
            var rows = [["NAME", "HOST", "FINGERPRINT", "ADDRESSES", "PAIRED", "LAST SEEN"]]
            rows += hosts.map {
                [$0.name, $0.hostName, $0.fingerprint, $0.addresses.joined(separator: ","), TableText.date($0.pairedAt),
                 $0.lastSeen.value.map(TableText.date) ?? "never"]
            }
            Console.line(TableText.render(rows))
        }
    }

    /// One host of `devices --json`.
    private struct KnownHostRow: Encodable {
        let name, hostName, fingerprint, publicKey: String
        let addresses: [String]
        let pairedAt: Date
        let lastSeen: OrNull<Date>
    }
}

struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget", abstract: "Remove a paired host and its pinned key from this controller.")

    @OptionGroup var options: ControllerOptions

    @Argument(help: "The host's name, as `zrc-ctl devices` lists it.")
    var name: String

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            do {
                let removed = try await context.knownHosts.remove(named: name)
                Console.line("Forgot \(removed.name). The host still lists this controller until you run `zrc-host controllers revoke` there.")
            } catch let error as StorageError {
                throw CommandError(error.kind == .notFound ? .failure : .storage, error.description)
            }
        }
    }
}
