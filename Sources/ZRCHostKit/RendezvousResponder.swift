import Foundation
import Logging
import ZRCNetworking
import ZRCProtocol

/// The host's side of the rendezvous: stays subscribed to the inbox topics of every paired
/// controller on each broker (reconnecting with backoff while a broker is away; the TCP listener
/// is unaffected), opens their sealed offers, answers with its own candidates, and hands each
/// ICE stream to the server like an accepted TCP connection.
actor RendezvousResponder {
    private let server: HostServer
    private let reach: HostReach
    private let logger: Logger
    /// Offer nonces seen, one cache per controller (a flood from one fills only its own).
    private var replays: [NoisePublicKey: ReplayGuard] = [:]
    /// Negotiations under way: in all, and per controller.
    private var negotiating = 0
    private var negotiatingBy: [NoisePublicKey: Int] = [:]
    /// Inbox topic → the controller whose offers arrive there.
    private var owners: [String: NoisePublicKey] = [:]

    static let topicRefresh: Duration = .seconds(60)

    init(server: HostServer, reach: HostReach, logger: Logger) {
        self.server = server
        self.reach = reach
        self.logger = logger
    }

    private var maxSkewMicros: UInt64 { UInt64(server.configuration.maximumClockSkew.components.seconds) * 1_000_000 }

    /// Runs until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for url in reach.rendezvous {
                group.addTask { await self.stayConnected(to: url) }
            }
        }
    }

    private func stayConnected(to url: ReachURL) async {
        var delay = Duration.seconds(1)
        var failures = 0
        while !Task.isCancelled {
            let client: any RendezvousBrokerClient
            do {
                client = try await reach.brokerMaker.connect(to: url, clientID: reach.clientID, persistent: true, timeout: .seconds(5))
            } catch {
                failures += 1
                // Said once per outage, not on every retry.
                if failures == 1 { logger.warning("rendezvous: \(error.message); retrying with backoff (direct TCP still works)") }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
                continue
            }
            logger.info("rendezvous: listening for controllers at \(url)\(failures > 0 ? " (reachable again)" : "")")
            failures = 0
            delay = .seconds(1)
            await serve(client)
            await client.close()
        }
    }

    /// Handles one persistent client's events until it ends or the task is cancelled.
    private func serve(_ client: any RendezvousBrokerClient) async {
        // Topics change with the day and with pairings: refresh on each change, and each minute.
        let changes = await server.watchControllers()
        let refresher = Task {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        await self.refreshTopics(client)
                        try? await Task.sleep(for: Self.topicRefresh)
                    }
                }
                group.addTask {
                    for await _ in changes { await self.refreshTopics(client) }
                }
            }
        }
        defer { refresher.cancel() }
        var first = true
        await withTaskCancellationHandler {
            for await event in client.events {
                switch event {
                case .connected:
                    // The first is the connection `stayConnected` already announced.
                    if !first { logger.info("rendezvous: connected to \(client.url) again") }
                    first = false
                case .disconnected(let reason): logger.warning("rendezvous: lost \(client.url) (\(reason)); reconnecting with backoff")
                case .message(let message): handle(message, from: client)
                }
            }
        } onCancel: {
            Task { await client.close() }
        }
    }

    /// Subscribes to yesterday's, today's and tomorrow's inbox of every paired controller.
    private func refreshTopics(_ client: any RendezvousBrokerClient) async {
        let controllers = (try? await server.controllers.all()) ?? []
        let now = server.configuration.unixSeconds
        var owners: [String: NoisePublicKey] = [:]
        for controller in controllers {
            guard let topics = try? RendezvousTopics(local: server.identity, remote: controller.publicKey, localIsHost: true, crypto: server.crypto)
            else { continue }
            for topic in topics.hostInboxTopics(unixSeconds: now) { owners[topic] = controller.publicKey }
        }
        self.owners = owners
        // Caches of controllers no longer paired go with them.
        let paired = Set(owners.values)
        replays = replays.filter { paired.contains($0.key) }
        do {
            try await client.setSubscriptions(Set(owners.keys))
        } catch {
            logger.warning("rendezvous: \(error.message)")
        }
    }

    private func handle(_ message: BrokerMessage, from client: any RendezvousBrokerClient) {
        guard let controller = owners[message.topic] else { return }
        let offer: RendezvousMessage.Offer
        do {
            guard case .offer(let opened) = try RendezvousSeal.open(message.payload, topic: message.topic, recipient: server.identity,
                                                                  sender: controller, crypto: server.crypto) else { return }
            var guardOfController = replays[controller]
                ?? ReplayGuard(maxSkewMicros: maxSkewMicros, capacity: reach.offerNoncesPerController)
            defer { replays[controller] = guardOfController }
            try guardOfController.admit(nonce: opened.nonce, timestampMicros: opened.timestampMicros, nowMicros: server.configuration.unixMicros())
            offer = opened
        } catch {
            logger.info("rendezvous: dropped a message: \(error.message)")
            return
        }
        let fingerprint = KeyDerivations.fingerprint(of: controller, crypto: server.crypto)
        let own = negotiatingBy[controller, default: 0]
        guard negotiating < reach.maxNegotiations, own < reach.maxNegotiationsPerController else {
            logger.notice("rendezvous: busy (\(negotiating) links being negotiated, \(own) for this controller); told controller \(fingerprint) to retry")
            Task { try? await answer(.busy, to: offer, controller: controller, client: client) }
            return
        }
        negotiating += 1
        negotiatingBy[controller] = own + 1
        Task {
            // The slot is for negotiating: it is free again once the stream is up (or failed).
            let link = await negotiate(offer, controller: controller, fingerprint: fingerprint, client: client)
            finished(controller)
            guard let (connection, path, agent) = link else { return }
            await server.serveAdopted(connection, source: .rendezvous(fingerprint), remote: "\(path)")
            await agent.close()
        }
    }

    private func finished(_ controller: NoisePublicKey) {
        negotiating -= 1
        let left = negotiatingBy[controller, default: 1] - 1
        negotiatingBy[controller] = left > 0 ? left : nil
    }

    /// The ICE stream to the controller, adopted as a connection, or nil (logged) when it failed.
    private func negotiate(_ offer: RendezvousMessage.Offer, controller: NoisePublicKey, fingerprint: String,
                           client: any RendezvousBrokerClient) async -> (TCPEndpoint.Connection, TransportPath, any IceAgent)? {
        var settings = reach.ice
        if offer.flags.contains(.noRelay) { settings.relays = [] }
        settings.conversation = offer.conversation
        let agent: any IceAgent
        do {
            agent = try await reach.iceMaker.makeAgent(controlling: false, settings: settings)
        } catch {
            logger.warning("rendezvous: cannot answer controller \(fingerprint): \(error.message)")
            return nil
        }
        do throws(ReachError) {
            let local = try await agent.localDescription(timeout: reach.gatherTimeout)
            try await answer(.accepted(local), to: offer, controller: controller, client: client)
            let stream = try await agent.connect(to: offer.ice, timeout: reach.iceTimeout)
            let connection: TCPEndpoint.Connection
            do {
                connection = try await TCPEndpoint.adopt(socket: stream.socket)
            } catch {
                throw ReachError(.iceFailed, "cannot use the ICE stream: \(error)")
            }
            logger.info("rendezvous: controller \(fingerprint) connected over \(stream.path)")
            return (connection, stream.path, agent)
        } catch {
            logger.warning("rendezvous: link with controller \(fingerprint) failed: \(error.message)")
        }
        await agent.close()
        return nil
    }

    @discardableResult
    private func answer(_ outcome: RendezvousMessage.Outcome, to offer: RendezvousMessage.Offer, controller: NoisePublicKey,
                        client: any RendezvousBrokerClient) async throws(ReachError) -> Bool {
        let topic = RendezvousTopics.replyTopic(token: offer.replyToken)
        let message = RendezvousMessage.answer(.init(timestampMicros: server.configuration.unixMicros(), nonce: offer.nonce, outcome: outcome))
        let sealed: [UInt8]
        do {
            sealed = try RendezvousSeal.seal(message, topic: topic, sender: server.identity, recipient: controller, crypto: server.crypto)
        } catch {
            throw ReachError(.misconfigured, "cannot seal the answer: \(error)")
        }
        try await client.publish(topic: topic, payload: sealed, timeout: .seconds(5))
        return true
    }
}
