import ArgumentParser
import ZRCCommandSupport
import ZRCProtocol

struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this host's identity key fingerprint (creating the key on first use).")

    @OptionGroup var options: HostOptions

    func run() async throws {
        try await CommandRunner.run(program: "zrc-host") {
            let context = try HostContext.load(options, defaultLogLevel: .warning)
            let (identity, crypto) = try context.identity()
            Console.line("Host key fingerprint: \(KeyDerivations.fingerprint(of: identity.publicKey, crypto: crypto))")
            Console.line("Public key: \(identity.publicKey.hex)")
        }
    }
}
