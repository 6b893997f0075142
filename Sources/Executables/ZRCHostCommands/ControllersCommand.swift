import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage
import Logging

struct ControllersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controllers",
        abstract: "List or revoke the controllers paired with this host.",
        subcommands: [List.self, Revoke.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List paired controllers (name, fingerprint, paired at, last seen).")

        @OptionGroup var options: HostOptions

        @Flag(help: "Print the list as JSON (for scripts; the shape is in the README).")
        var json = false

        /// One controller of `controllers --json`; `liveSessions` is null when no server runs.
        private struct Row: Encodable {
            let name, fingerprint: String
            let pairedAt: Date
            let lastSeen: OrNull<Date>
            let liveSessions: OrNull<Int>
        }

        func run() async throws {
            try await CommandRunner.run(program: "zrc-host") {
                let context = try HostContext.load(options, defaultLogLevel: .warning)
                let summaries: [ControllerSummary]
                var live = true
                do {
                    guard case .controllers(let list) = try await context.request(.listControllers) else {
                        throw CommandError(.failure, "the server answered something other than a list")
                    }
                    summaries = list
                } catch let error as CommandError where error.kind == .notRunning {
                    // Reading the store is safe without the server; only live sessions are unknown.
                    live = false
                    let crypto = try Identity.makeCrypto()
                    do {
                        summaries = try await context.controllers.all().map {
                            ControllerSummary(name: $0.name, fingerprint: KeyDerivations.fingerprint(of: $0.publicKey, crypto: crypto),
                                              pairedAt: $0.pairedAt, lastSeen: $0.lastSeen, liveSessions: 0)
                        }
                    } catch let error as StorageError {
                        throw CommandError(.storage, error.description)
                    }
                }
                if json {
                    let rows = summaries.map {
                        Row(name: $0.name, fingerprint: $0.fingerprint, pairedAt: $0.pairedAt, lastSeen: OrNull($0.lastSeen),
                            liveSessions: OrNull(live ? $0.liveSessions : nil))
                    }
                    return try JSONOutput.line(["controllers": rows])
                }
                if summaries.isEmpty {
                    Console.line("No paired controllers. Create an invite with `zrc-host pair`.")
                    return
                }
                var rows = [["NAME", "FINGERPRINT", "PAIRED", "LAST SEEN", "SESSIONS"]]
                for summary in summaries {
                    rows.append([summary.name, summary.fingerprint, TableText.date(summary.pairedAt),
                                 summary.lastSeen.map(TableText.date) ?? "never", live ? String(summary.liveSessions) : "-"])
                }
                Console.line(TableText.render(rows))
                if !live { Console.line("(zrc-host serve is not running: live sessions unknown)") }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a controller from the authorized list and end its live sessions.")

        @OptionGroup var options: HostOptions

        @Argument(help: "The controller's name, as `zrc-host controllers` lists it.")
        var name: String

        func run() async throws {
            try await CommandRunner.run(program: "zrc-host") {
                let context = try HostContext.load(options, defaultLogLevel: .warning)
                do {
                    guard case .revoked(let revoked, let ended) = try await context.request(.revokeController(name: name)) else {
                        throw CommandError(.failure, "the server answered something unexpected")
                    }
                    Console.line("Revoked \(revoked); ended \(ended) live session(s).")
                } catch let error as CommandError where error.kind == .notRunning {
                    // No server answered for this identity: editing its store directly is safe
                    // (the store's lock keeps a concurrent save from bringing the key back).
                    do {
                        let removed = try await context.controllers.revoke(name: name)
                        let socket = context.paths.hostControlSocket(keyID: context.keyID).path
                        Console.line("Revoked \(removed.name) in \(context.paths.authorizedControllersFile(keyID: context.keyID).path). "
                            + "No zrc-host serve for identity `\(context.keyID)` answered on \(socket), so no live session was ended here; "
                            + "a server of this identity started elsewhere refuses the controller's next handshake.")
                    } catch let error as StorageError {
                        throw CommandError(error.kind == .notFound ? .failure : .storage, error.description)
                    }
                }
            }
        }
    }
}
