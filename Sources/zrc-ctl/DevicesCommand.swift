import ArgumentParser
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCStorage

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the hosts this controller is paired with.")

    @OptionGroup var options: ControllerOptions

    func run() async throws {
        try await CommandRunner.run(program: "zrc-ctl") {
            let context = try ControllerContext.load(options)
            let crypto = try Identity.makeCrypto()
            let hosts: [KnownHostRow]
            do {
                hosts = try await context.knownHosts.all().map {
                    KnownHostRow(name: $0.name, hostName: $0.hostName, fingerprint: KeyDerivations.fingerprint(of: $0.publicKey, crypto: crypto),
                                 addresses: $0.addresses.joined(separator: ","), paired: TableText.date($0.pairedAt),
                                 lastSeen: $0.lastSeen.map(TableText.date) ?? "never")
                }
            } catch let error as StorageError {
                throw CommandError(.storage, error.description)
            }
            if hosts.isEmpty {
                Console.line("No paired hosts. Pair with `zrc-ctl pair <invite>` (run `zrc-host pair` on the host for an invite).")
                return
            }
            var rows = [["NAME", "HOST", "FINGERPRINT", "ADDRESSES", "PAIRED", "LAST SEEN"]]
            rows += hosts.map { [$0.name, $0.hostName, $0.fingerprint, $0.addresses, $0.paired, $0.lastSeen] }
            Console.line(TableText.render(rows))
        }
    }

    private struct KnownHostRow {
        let name, hostName, fingerprint, addresses, paired, lastSeen: String
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
