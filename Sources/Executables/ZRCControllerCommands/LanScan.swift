import Foundation
import ZRCCommandSupport
import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCStorage
import ZRCReach

/// `zrc-ctl devices --scan`: the ZRC hosts announcing themselves on this LAN, each marked with
/// the name it is paired under here, or as not paired. Names and TXT come from any machine on
/// the LAN: sanitized before the terminal sees them, and never trusted (pairing pins the key).
struct LanScan {
    let options: ControllerOptions
    let duration: Duration
    let json: Bool

    /// One host of `devices --scan --json`.
    private struct Announced: Encodable {
        let name: String
        let addresses: [String]
        let pairedAs: OrNull<String>
    }

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let crypto = try Identity.makeCrypto()
            let known: [KnownHost]
            do {
                known = try await context.knownHosts.all()
            } catch {
                throw CommandError(.storage, "\(error)")
            }
            let seen: [LanHost]
            do {
                seen = try await ReachWiring.lanDiscovery().browse(for: duration) { _ in false }
            } catch {
                throw CommandError(.failure, "\(error)")
            }
            let now = UInt64(max(0, Date().timeIntervalSince1970))
            let announced = seen.map { host in
                let hint = host.txt[LanHint.txtKey] ?? ""
                let pairedAs = known.first { LanHint.matches(hint, hostKey: $0.publicKey, unixSeconds: now, crypto: crypto) }
                return Announced(name: host.name, addresses: host.endpoints.map(\.description), pairedAs: OrNull(pairedAs?.name))
            }
            if json { return try JSONOutput.line(["announced": announced]) }
            if seen.isEmpty {
                Console.line("No ZRC hosts announced themselves on this LAN within \(duration.formatted(.units(allowed: [.seconds, .milliseconds]))).")
                return
            }
            var rows = [["NAME", "ADDRESS", "PAIRED AS"]]
            for host in announced {
                rows.append([TerminalSafeText.sanitized(host.name), TerminalSafeText.sanitized(host.addresses.first ?? "?"),
                             host.pairedAs.value.map { "`\($0)`" } ?? "not paired"])
            }
            Console.line(TableText.render(rows))
        }
    }
}
