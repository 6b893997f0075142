public import ArgumentParser
import Logging
import ZRCStorage
import ZRCCommandSupport
public import ZRCHostKit

/// Options every `zrc-host` subcommand accepts.
struct HostOptions: ParsableArguments {
    @Option(name: .long, help: "Where the host identity key lives: keyring (default) or file (explicit opt-in for services).")
    var keyStore: KeyStoreChoice?

    @Option(name: .long, help: "Name of the identity key in the key store (default: `default`); lets several identities live side by side.")
    var keyID: String = Identity.defaultKeyID

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level?
}


extension SessionPolicy: ExpressibleByArgument {}
