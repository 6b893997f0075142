import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCStorage

/// `zrc-ctl devices --online`: every paired host probed at once, answered within the deadline.
struct OnlineDevices {
    let options: ControllerOptions
    let deadline: Duration
    let json: Bool

    /// One host of `devices --online --json`.
    struct Row: Encodable {
        let name: String
        let online: Bool
        let path: OrNull<String>
        let roundTripMs: OrNull<Double>
        let reason: OrNull<String>
        let lastSeen: OrNull<Date>
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let controller = try context.controller()
            let known: [KnownHost]
            do {
                known = try await context.knownHosts.all()
            } catch let error as StorageError {
                throw CommandError(.storage, error.description)
            }
            let report: [HostPresence]
            do {
                report = try await controller.presence(of: known, within: deadline)
            } catch let error as ControllerError {
                throw CommandError(error)
            }
            // Read again: a probe that reached its host marked it seen.
            let seen = Dictionary(((try? await context.knownHosts.all()) ?? known).map { ($0.name, $0.lastSeen) }, uniquingKeysWith: { a, _ in a })
            let rows = report.map { presence -> Row in
                switch presence.state {
                case .online(let path, let roundTrip):
                    Row(name: presence.name, online: true, path: OrNull(path.description), roundTripMs: OrNull(Self.milliseconds(roundTrip)),
                        reason: OrNull(nil), lastSeen: OrNull(seen[presence.name] ?? nil))
                case .offline(let reason):
                    Row(name: presence.name, online: false, path: OrNull(nil), roundTripMs: OrNull(nil), reason: OrNull(reason),
                        lastSeen: OrNull(seen[presence.name] ?? nil))
                }
            }
            if json { return try JSONOutput.line(["hosts": rows]) }
            if rows.isEmpty {
                Console.line("No paired hosts. Pair with `zrc-ctl pair --code` and the code `zrc-host pair --code` shows on the host.")
                return
            }
            var table = [["NAME", "STATE", "PATH", "RTT", "LAST SEEN"]]
            table += rows.map { row in
                [row.name, row.online ? "ONLINE" : "OFFLINE", row.path.value ?? (row.reason.value ?? ""),
                 row.roundTripMs.value.map { String(format: "%.1f ms", $0) } ?? "—", row.lastSeen.value.map(TableText.date) ?? "never"]
            }
            Console.line(TableText.render(table))
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
