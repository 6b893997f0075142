public import Foundation
import Logging
import Synchronization
public import ZRCControllerKit
public import ZRCFiles
public import ZRCFrames
public import ZRCHostKit
import ZRCNetworking
public import ZRCReach
public import ZRCProtocol
public import ZRCSodium
public import ZRCStorage
public import ZRCTestSupport

/// A real `HostServer` on loopback with its files in a temporary directory, and controllers
/// to talk to it. Short timeouts keep the tests quick.
public final class HostHarness: Sendable {
    public let directory: URL
    public let crypto: SodiumCrypto
    public let hostIdentity: NoiseKeyPair
    public let log = LogCapture()
    public let server: HostServer
    public let clock = ClockOffset()
    private let task: Mutex<Task<Void, any Error>?> = Mutex(nil)

    /// `handshakeTimeout`: generous by default, like the keepalive timings below (it also bounds
    /// pairing, which writes the trust store: the suite's busiest first minute, with X servers,
    /// terminals and dozens of hosts starting on two cores, once stalled pairings past 10 s); the
    /// hostile-client tests pass a short one to see stalled handshakes closed.
    /// `deadPeerTimeout`: as generous (a controller starved of CPU by the suite beside it sends
    /// its keepalives late); the dead-peer test passes a short one.
    public init(hostIdentity: NoiseKeyPair? = nil, directory: URL? = nil, handshakeTimeout: Duration = .seconds(30),
         deadPeerTimeout: Duration = .seconds(30),
         sharing: ScreenSharing? = nil, policy: SessionPolicy = .viewOnly, admission: AdmissionLimits = AdmissionLimits(),
         reach: HostReach? = nil, clipboard: ClipboardSharing? = nil, listen: String = "127.0.0.1",
         lanDiscovery: (any LanDiscovery)? = nil, indicator: (any SessionIndicator)? = nil,
         approvalTimeout: Duration? = nil, files: FileSharing? = nil) throws {
        PoolStallWatch.start()
        let crypto = try SodiumCrypto()
        self.crypto = crypto
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("zrc-kit-\(UUID().uuidString)")
        self.directory = directory
        let identity = hostIdentity ?? crypto.generateKeyPair()
        self.hostIdentity = identity
        let offset = clock
        var configuration = HostServerConfiguration(
            listen: HostPort(host: listen, port: 0), hostName: "test-host", inviteLifetimeSeconds: 600,
            handshakeTimeout: handshakeTimeout,
            // Generous: the suites run in parallel on 2 cores, and a starved test must not look dead.
            timings: ConnectionTimings(keepaliveInterval: .seconds(1), deadPeerTimeout: deadPeerTimeout),
            controlSocket: directory.appendingPathComponent("run/host.sock"), admission: admission,
            randomSecret: { crypto.randomSecret(count: $0) },
            unixMicros: { UInt64(Int64(Date().timeIntervalSince1970 * 1_000_000) + offset.seconds * 1_000_000) }, sharing: sharing,
            clipboard: clipboard, policy: policy, reach: reach, lanDiscovery: lanDiscovery)
        configuration.cpace = try SodiumCPaceGroup()
        configuration.indicator = indicator
        configuration.approvalTimeout = approvalTimeout
        configuration.files = files
        server = HostServer(configuration: configuration, identity: identity, crypto: crypto,
                            controllers: AuthorizedControllersStore(file: directory.appendingPathComponent("data/authorized-controllers.json")),
                            logger: log.logger)
    }

    /// Starts the server and returns its address.
    public func start() async throws -> HostPort {
        let (addresses, sink) = AsyncStream<HostPort>.makeStream()
        let server = self.server
        task.withLock { $0 = Task { try await server.run { sink.yield($0) } } }
        for await address in addresses { return address }
        throw CancellationError()
    }

    /// Runs `body`, then stops the server and waits for it, also when `body` throws: a test's
    /// server never outlives the test (an unawaited `defer { Task { … } }` let it).
    public func stoppingAfter<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await stop()
            return result
        } catch {
            reportLog(on: error)
            await stop()
            throw error
        }
    }

    /// Pairs `controller` with a fresh invite; on failure the host's log goes to standard error.
    @discardableResult
    public func pair(_ controller: ZRCController, name: String?) async throws -> KnownHost {
        do {
            return try await controller.pair(inviteText: try await invite(), name: name)
        } catch {
            reportLog(on: error)
            throw error
        }
    }

    /// The host's side of a failure (why it closed a connection), which is otherwise lost.
    public func reportLog(on error: any Error) {
        let tail = log.all.suffix(12).joined(separator: "\n  ")
        FileHandle.standardError.write(Data("host harness: on `\(error)`, the host's last log lines:\n  \(tail)\n".utf8))
    }

    /// Ends every session and waits until the server has stopped: its connections' handlers,
    /// their sessions and streamers have all returned, so nothing of this test runs on.
    public func stop() async {
        await server.shutdown()
        let running = task.withLock { $0 }
        running?.cancel()
        _ = await running?.result
    }

    public func request(_ request: HostControlRequest) async throws -> HostControlResponse {
        try await LocalControlSocket.send(request, to: server.configuration.controlSocket, expecting: HostControlResponse.self)
    }

    public func invite(lifetime: Int = 600) async throws -> String {
        guard case .invite(let summary) = try await request(.createInvite(lifetimeSeconds: lifetime, addresses: [])) else {
            throw HarnessError("no invite")
        }
        return summary.invite
    }

    public func controller(name: String = "laptop", identity: NoiseKeyPair? = nil,
                    makeDecoder: @escaping @Sendable () -> any RegionDecoder = { RawRegionCodec() },
                    capabilities: Capabilities? = nil, reach: ControllerReach = ControllerReach()) -> (ZRCController, NoiseKeyPair) {
        let identity = identity ?? crypto.generateKeyPair()
        let store = KnownHostsStore(file: directory.appendingPathComponent("ctl-\(UUID().uuidString)/known-hosts.json"))
        // Generous: a flood test and the rest of the suite share two cores with this controller.
        let configuration = ControllerConfiguration(connectTimeout: .seconds(5), handshakeTimeout: .seconds(30),
                                                    keepaliveInterval: .seconds(1), deadPeerTimeout: .seconds(30),
                                                    makeDecoder: makeDecoder, capabilities: capabilities, reach: reach)
        let controller = ZRCController(identity: identity, crypto: crypto, knownHosts: store, controllerName: name,
                                       configuration: configuration, logger: log.logger)
        return (controller, identity)
    }

    /// Two controllers, `first` and `second`, paired with this host as `desk`.
    public func pairTwoControllers(capabilities: Capabilities? = nil) async throws -> (ZRCController, ZRCController) {
        let (first, _) = controller(name: "first", capabilities: capabilities)
        try await pair(first, name: "desk")
        let (second, _) = controller(name: "second", capabilities: capabilities)
        try await pair(second, name: "desk")
        return (first, second)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Moves the host's wall clock for expiry tests.
public final class ClockOffset: Sendable {
    private let value = Atomic<Int64>(0)
    public var seconds: Int64 { value.load(ordering: .relaxed) }
    public func advance(by seconds: Int64) { value.store(seconds, ordering: .relaxed) }
}
