import Foundation
import Logging
import ZRCCommandSupport
import ZRCHostKit
import ZRCKeyStore
import ZRCNetworking
import ZRCProtocol
import ZRCSodium
import ZRCStorage

/// What every subcommand needs: paths, config, logging, and the way to the running server.
struct HostContext {
    let paths: ZRCPaths
    let config: HostConfig
    let logger: Logger
    let keyStoreChoice: KeyStoreChoice
    let keyID: String

    static func load(_ options: HostOptions, defaultLogLevel: Logger.Level) throws(CommandError) -> HostContext {
        Console.bootstrapLogging(level: options.logLevel ?? defaultLogLevel)
        let paths = ZRCPaths.fromEnvironment(ProcessInfo.processInfo.environment)
        let config: HostConfig
        do {
            config = try DocumentFile.load(HostConfig.self, from: paths.hostConfigFile) ?? HostConfig()
        } catch {
            throw CommandError(.storage, error.description)
        }
        return HostContext(paths: paths, config: config, logger: Logger(label: "zrc-host"),
                           keyStoreChoice: options.keyStore ?? config.keyStore, keyID: options.keyID)
    }

    var hostName: String {
        config.hostName ?? ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "zrc-host"
    }

    var controllers: AuthorizedControllersStore { AuthorizedControllersStore(file: paths.authorizedControllersFile(keyID: keyID)) }

    func identity() throws(CommandError) -> (NoiseKeyPair, SodiumCrypto) {
        let crypto = try Identity.makeCrypto()
        let store = Identity.keyStore(keyStoreChoice, paths: paths, logger: logger)
        return (try Identity.loadOrCreate(role: .host, keyID: keyID, store: store, crypto: crypto, logger: logger), crypto)
    }

    /// Sends a request to the running server; `.notRunning` when there is none.
    func request(_ request: HostControlRequest) async throws(CommandError) -> HostControlResponse {
        let response: HostControlResponse
        do {
            response = try await LocalControlSocket.send(request, to: paths.hostControlSocket(keyID: keyID), expecting: HostControlResponse.self)
        } catch {
            switch error.kind {
            case .notRunning:
                throw CommandError(.notRunning, "zrc-host serve is not running (no server on \(paths.hostControlSocket(keyID: keyID).path)); start it with `zrc-host serve`")
            case .alreadyRunning, .protocolError, .io:
                throw CommandError(.failure, error.description)
            }
        }
        if case .failure(let message) = response { throw CommandError(.failure, message) }
        return response
    }
}
