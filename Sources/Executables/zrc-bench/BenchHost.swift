import ArgumentParser
import Foundation
import Logging
import Synchronization
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCSodium
import ZRCStorage

/// A host server on loopback with a throwaway identity and its files in the benchmark's directory.
final class BenchHost: Sendable {
    let server: HostServer
    private let task = Mutex<Task<Void, any Error>?>(nil)

    init(directory: URL, sharing: ScreenSharing, listen: String = "127.0.0.1", port: UInt16 = 0, reach: HostReach? = nil, files: FileSharing? = nil,
         logger: Logger) throws {
        let crypto = try SodiumCrypto()
        var configuration = HostServerConfiguration(
            listen: HostPort(host: listen, port: port), hostName: "zrc-bench",
            controlSocket: directory.appendingPathComponent("run/host.sock"),
            randomSecret: { crypto.randomSecret(count: $0) }, sharing: sharing, reach: reach)
        configuration.files = files
        server = HostServer(configuration: configuration, identity: crypto.generateKeyPair(), crypto: crypto,
                            controllers: AuthorizedControllersStore(file: directory.appendingPathComponent("authorized-controllers.json")),
                            logger: logger)
    }

    /// Starts serving; returns the address it listens on.
    @discardableResult
    func start() async throws -> HostPort {
        let (addresses, sink) = AsyncStream<HostPort>.makeStream()
        let server = self.server
        task.withLock {
            $0 = Task {
                defer { sink.finish() }
                try await server.run { sink.yield($0) }
            }
        }
        for await address in addresses { return address }
        throw ValidationError("the benchmark's host did not start listening")
    }

    func invite(addresses: [String] = []) async throws -> String {
        let response = try await LocalControlSocket.send(HostControlRequest.createInvite(lifetimeSeconds: 300, addresses: addresses),
                                                         to: server.configuration.controlSocket, expecting: HostControlResponse.self)
        guard case .invite(let summary) = response else { throw ValidationError("the host made no invite: \(response)") }
        return summary.invite
    }

    /// Ends every session and waits until the server has stopped.
    func stop() async {
        await server.shutdown()
        let running = task.withLock { $0 }
        running?.cancel()
        _ = await running?.result
    }
}

extension BenchHost {
    /// Controller processes (the pipeline's sink) that view this host, each connected; with
    /// `skipDecode` they decode no JPEG (a view-only audience that leaves the cores to the host).
    /// `first` numbers them in their names.
    func startViewers(_ count: Int, directory: URL, skipDecode: Bool = false, first: Int = 2) async throws -> [BenchChild] {
        var started: [BenchChild] = []
        do {
            for index in 0..<count {
                let viewerDirectory = directory.appendingPathComponent("viewer-\(first + index)")
                try FileManager.default.createDirectory(at: viewerDirectory, withIntermediateDirectories: true)
                let viewer = try BenchChild("viewer \(first + index)", executable: BenchChild.selfExecutable,
                                            arguments: ["sink", "--directory", viewerDirectory.path] + (skipDecode ? ["--skip-decode"] : []))
                started.append(viewer)
                viewer.send(line: try await invite())
                try await viewer.waitForLine("connected", timeout: .seconds(20))
            }
        } catch {
            for viewer in started { viewer.stop() }
            throw error
        }
        return started
    }
}
