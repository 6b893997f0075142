import ArgumentParser
import ZRCCommandSupport
import ZRCProtocol
import Logging

struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this host's identity key fingerprint (creating the key on first use).")

    @OptionGroup var options: HostOptions

    @Flag(help: "Print the identity as JSON (for scripts; the shape is in the README).")
    var json = false

    func run() async throws {
        try await CommandRunner.run(program: "zrc-host") {
            let context = try HostContext.load(options, defaultLogLevel: .warning)
            let (identity, crypto) = try context.identity()
            if json {
                return try JSONOutput.line(["fingerprint": KeyDerivations.fingerprint(of: identity.publicKey, crypto: crypto),
                                            "publicKey": identity.publicKey.hex])
            }
            Console.line("Host key fingerprint: \(KeyDerivations.fingerprint(of: identity.publicKey, crypto: crypto))")
            Console.line("Public key: \(identity.publicKey.hex)")
        }
    }
}
