import Foundation
import Logging
import ZRCNetworking
import ZRCProtocol
import ZRCReach
import ZRCStorage

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
    /// `busy` answers per controller (each is a sealing): a controller flooding offers gets a
    /// few, not one per offer.
    private var busyAnswers: [NoisePublicKey: RequestBudget] = [:]
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

    /// How far from midnight the neighbouring day's topics are listened on too: the clock skew
    /// allowed, and the refresh period on top.
    private var dayMargin: UInt64 { maxSkewMicros / 1_000_000 + UInt64(Self.topicRefresh.components.seconds) * 2 }

    /// Why serving a broker connection ended.
    private enum ServeEnd {
        /// The connection ended (or the task was cancelled): connect again with backoff.
        case ended
        /// A new day's connection is due: a fresh client ID, so the broker cannot carry one
        /// day's session into the next.
        case rollover
    }

    private func stayConnected(to url: ReachURL) async {
        var delay = Duration.seconds(1)
        var failures = 0
        var previous: (any RendezvousBrokerClient)?
        while !Task.isCancelled {
            let client: any RendezvousBrokerClient
            do {
                client = try await reach.brokerMaker.connect(to: url, clientID: reach.clientID(), persistent: true, timeout: .seconds(5))
                // Make before break: the old day's connection goes once the new one is up.
                await previous?.close()
                previous = nil
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
            switch await serve(client, rolloverAt: nextRollover()) {
            case .ended: await client.close()
            case .rollover: previous = client
            }
        }
        await previous?.close()
    }

    /// When this connection gives way to a fresh one: after the next midnight's window of two
    /// days' topics has passed, plus up to 10 minutes at random (so the moment says nothing).
    private func nextRollover() -> UInt64 {
        let now = server.configuration.unixSeconds
        let midnight = (now / RendezvousTopics.secondsPerDay + 1) * RendezvousTopics.secondsPerDay
        return midnight + dayMargin + UInt64.random(in: 0...600)
    }

    /// Handles one persistent client's events until it ends, the task is cancelled, or at
    /// `rolloverAt` (Unix seconds) a fresh connection is due.
    private func serve(_ client: any RendezvousBrokerClient, rolloverAt: UInt64) async -> ServeEnd {
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
        let now = server.configuration.unixSeconds
        // Whichever ends first: the connection (its events end, also when this task is
        // cancelled), or the day's rollover. The caller closes the client.
        return await withTaskGroup(of: ServeEnd.self) { group in
            group.addTask {
                await self.handleEvents(of: client)
                return .ended
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(Int64(rolloverAt > now ? rolloverAt - now : 0)))
                return Task.isCancelled ? .ended : .rollover
            }
            let first = await group.next() ?? .ended
            group.cancelAll()
            return first
        }
    }

    private func handleEvents(of client: any RendezvousBrokerClient) async {
        var first = true
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
    }

    /// Subscribes to today's inbox of every paired controller, and of every controller that
    /// proved a pairing code and has yet to pair, and near midnight to the neighbouring day's too
    /// (`RendezvousTopics.hostInboxTopics`).
    private func refreshTopics(_ client: any RendezvousBrokerClient) async {
        let controllers = ((try? await server.controllers.all()) ?? []).map(\.publicKey) + (await server.codePairingKeys())
        let now = server.configuration.unixSeconds
        var owners: [String: NoisePublicKey] = [:]
        for controller in controllers {
            guard let topics = try? RendezvousTopics(local: server.identity, remote: controller, localIsHost: true, crypto: server.crypto)
            else { continue }
            for topic in topics.hostInboxTopics(unixSeconds: now, margin: dayMargin) { owners[topic] = controller }
        }
        self.owners = owners
        // Caches of controllers no longer paired go with them.
        let paired = Set(owners.values)
        replays = replays.filter { paired.contains($0.key) }
        busyAnswers = busyAnswers.filter { paired.contains($0.key) }
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
            var budget = busyAnswers[controller] ?? RequestBudget(perSecond: 1, burst: 3)
            let answering = budget.allow(nowMicros: WireClock.monotonicMicros())
            busyAnswers[controller] = budget
            guard answering else { return }
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
            try await answer(.accepted(local, relays: reach.relayCredentials(controller)), to: offer, controller: controller, client: client)
            // A relay-only host never asks its relay to reach the controller's private addresses.
            let remote = settings.relayOnly ? offer.ice.withoutPrivateCandidates : offer.ice
            let stream = try await agent.connect(to: remote, timeout: reach.iceTimeout)
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
