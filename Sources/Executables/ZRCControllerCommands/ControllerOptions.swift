import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCProtocol
import ZRCStorage
import ZRCKeyStore

/// Options every `zrc-ctl` subcommand accepts.
struct ControllerOptions: ParsableArguments {
    @Option(name: .long, help: "Where the controller identity key lives: keyring (default) or file (explicit opt-in).")
    var keyStore: KeyStoreChoice?

    @Option(name: .long, help: "Name of the identity key in the key store (default: `default`); lets several identities live side by side.")
    var keyID: String = Identity.defaultKeyID

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level?
}


/// Paths, config and the controller core, as every subcommand needs them.
struct ControllerContext {
    let paths: ZRCPaths
    var config: ControllerConfig
    let logger: Logger
    let keyStoreChoice: KeyStoreChoice
    let keyID: String

    static func load(_ options: ControllerOptions) throws(CommandError) -> ControllerContext {
        Console.bootstrapLogging(level: options.logLevel ?? .warning)
        let paths = ZRCPaths.fromEnvironment(ProcessInfo.processInfo.environment)
        let config: ControllerConfig
        do {
            config = try DocumentFile.load(ControllerConfig.self, from: paths.controllerConfigFile) ?? ControllerConfig()
        } catch {
            throw CommandError(.storage, error.description)
        }
        return ControllerContext(paths: paths, config: config, logger: Logger(label: "zrc-ctl"),
                                 keyStoreChoice: options.keyStore ?? config.keyStore, keyID: options.keyID)
    }

    var knownHosts: KnownHostsStore { KnownHostsStore(file: paths.knownHostsFile) }

    /// The paired host `name`, or an error naming the hosts there are.
    func knownHost(named name: String) async throws(CommandError) -> KnownHost {
        do {
            return try await knownHosts.host(named: name)
        } catch {
            throw CommandError(.failure, error.description)
        }
    }

    var controllerName: String {
        if let name = config.controllerName { return name }
        let user = ProcessInfo.processInfo.userName.isEmpty ? "user" : ProcessInfo.processInfo.userName
        let machine = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "controller"
        return String("\(user)@\(machine)".prefix(64))
    }

    /// The controller core with this machine's identity (created on first use).
    /// `showsScreen` asks hosts for frames (decoded with libjpeg-turbo); `ping` and the like do not.
    /// `wantsClipboard` asks for the host's clipboard changes (unless controller.json turns the
    /// clipboard off).
    func controller(showsScreen: Bool = false, wantsClipboard: Bool = false, exactPictures: Bool = false,
                    viewerAcknowledges: Bool = false, wantsFiles: Bool = false) throws(CommandError) -> ZRCController {
        let crypto = try Identity.makeCrypto()
        let store = Identity.keyStore(keyStoreChoice, paths: paths, logger: logger)
        let identity = try Identity.loadOrCreate(role: .controller, keyID: keyID, store: store, crypto: crypto, logger: logger)
        var configuration = ControllerConfiguration(reach: ReachWiring.controllerReach(config))
        configuration.wantsClipboard = wantsClipboard && config.clipboard
        configuration.exactPictures = exactPictures
        configuration.viewerAcknowledges = viewerAcknowledges
        configuration.wantsFiles = wantsFiles
        if showsScreen {
            configuration.makeDecoder = try FrameCodec.decoderFactory()
        }
        return ZRCController(identity: identity, crypto: crypto, knownHosts: knownHosts, controllerName: controllerName,
                             configuration: configuration, logger: logger)
    }
}

extension CommandError {
    /// Exit codes for controller failures.
    init(_ error: ControllerError) {
        let kind: CommandError.Kind =
            switch error.kind {
            case .invalidInvite: .invalidInvite
            case .unreachable: .unreachable
            case .rejected, .wrongPeer, .handshakeFailed: .refused
            case .storage: .storage
            case .closedByHost, .connectionLost, .closed, .nameInUse: .failure
            }
        self.init(kind, error.message)
    }
}
