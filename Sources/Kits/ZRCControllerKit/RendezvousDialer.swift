import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCReach
import FoundationInternationalization

/// Reaches a paired host through a rendezvous broker: a sealed offer with this side's ICE
/// candidates to the pairing's inbox topic, the host's sealed answer on a one-time reply topic,
/// then ICE connectivity checks and a PseudoTCP stream the record layer runs over unchanged.
struct RendezvousDialer: Sendable {
    let identity: NoiseKeyPair
    let crypto: any NoiseCrypto
    let reach: ControllerReach
    let logger: Logger

    struct Stream: Sendable {
        let connection: TCPEndpoint.Connection
        let path: TransportPath
        let agent: any IceAgent
    }

    /// Opens an ICE stream to the host with `hostKey`, through the first broker of `brokers`
    /// that answers. Every failure names the broker, or the candidates ICE tried.
    func open(hostKey: NoisePublicKey, brokers: [ReachURL], ice settings: IceSettings,
              nowUnixMicros: @Sendable () -> UInt64,
              keepRelayCredentials: @Sendable ([RelayCredential]) async -> Void = { _ in }) async throws(ReachError) -> Stream {
        guard let iceMaker = reach.iceMaker, let brokerMaker = reach.brokerMaker else {
            throw ReachError(.misconfigured, "this controller was built without ICE or a rendezvous client")
        }
        guard !brokers.isEmpty else {
            throw ReachError(.misconfigured, "no rendezvous server is known for this host (pair again with a host that has rendezvousUrls, or set rendezvousUrls in controller.json)")
        }
        let started = ContinuousClock.now
        func elapsed() -> String { "\((ContinuousClock.now - started).formatted(.units(allowed: [.milliseconds])))" }
        // The offer's nonce comes first: the ICE stream's conversation number derives from it.
        let nonce = Self.randomBytes(RendezvousMessage.nonceLength)
        var settings = settings
        settings.conversation = RendezvousMessage.Offer.conversation(nonce: nonce)
        // The broker connection and candidate gathering both take round trips: overlap them.
        async let agentResult = Self.capture { [settings] () async throws(ReachError) in
            let agent = try await iceMaker.makeAgent(controlling: true, settings: settings)
            return (agent, try await agent.localDescription(timeout: reach.gatherTimeout))
        }
        // The client ID is the reply token: a broker can then let each client read its own reply
        // topic and nothing else (`pattern read zrc/v1/out/%c`, see README).
        let replyToken = Self.randomBytes(RendezvousMessage.tokenLength)
        let broker: any RendezvousBrokerClient
        do {
            broker = try await connectBroker(brokers, clientID: RendezvousTopics.clientID(replyToken: replyToken), maker: brokerMaker)
        } catch {
            if case .success(let (agent, _)) = await agentResult { await agent.close() }
            throw error
        }
        defer { Task { await broker.close() } }
        let (agent, local) = try await agentResult.get()
        logger.debug("rendezvous: broker \(broker.url) connected and \(local.candidates.count) candidates gathered after \(elapsed())")
        do throws(ReachError) {
            let (answer, relays) = try await exchange(offerICE: local, nonce: nonce, hostKey: hostKey, replyToken: replyToken, broker: broker,
                                                      nowUnixMicros: nowUnixMicros)
            if !relays.isEmpty { await keepRelayCredentials(relays) }
            var remote = answer
            if reach.preference == .direct { remote.candidates.removeAll { $0.kind == .relayed } }
            // Relay only: pairs with the host's private addresses would go through the relay,
            // which would learn them (CreatePermission, Send); they could not work there anyway.
            if reach.preference.relayOnly { remote = remote.withoutPrivateCandidates }
            logger.debug("rendezvous: the host answered with \(remote.candidates.count) candidates after \(elapsed())")
            let stream: IceStream
            do {
                stream = try await agent.connect(to: remote, timeout: reach.iceTimeout)
            } catch where reach.preference == .direct {
                throw ReachError(error.kind, error.message + " (transportPreference is direct: relays were not tried)")
            }
            logger.debug("rendezvous: ICE connected over \(stream.path) after \(elapsed())")
            let connection: TCPEndpoint.Connection
            do {
                connection = try await TCPEndpoint.adopt(socket: stream.socket)
            } catch {
                throw ReachError(.iceFailed, "cannot use the ICE stream: \(error)")
            }
            logger.debug("rendezvous: connected over \(stream.path) (window \(stream.window) bytes)")
            return Stream(connection: connection, path: stream.path, agent: agent)
        } catch {
            await agent.close()
            throw error
        }
    }

    private func connectBroker(_ brokers: [ReachURL], clientID: String, maker: any RendezvousBrokerMaker) async throws(ReachError)
        -> any RendezvousBrokerClient {
        var failures: [String] = []
        for url in brokers {
            do {
                return try await maker.connect(to: url, clientID: clientID, persistent: false, timeout: reach.brokerTimeout)
            } catch {
                failures.append(error.message)
            }
        }
        throw ReachError(.brokerUnavailable, failures.joined(separator: "; "))
    }

    private func exchange(offerICE: IceDescription, nonce: [UInt8], hostKey: NoisePublicKey, replyToken: [UInt8], broker: any RendezvousBrokerClient,
                          nowUnixMicros: @Sendable () -> UInt64) async throws(ReachError) -> (IceDescription, [RelayCredential]) {
        let topics: RendezvousTopics
        do {
            topics = try RendezvousTopics(local: identity, remote: hostKey, localIsHost: false, crypto: crypto)
        } catch {
            throw ReachError(.misconfigured, "cannot derive the rendezvous topic: \(error)")
        }
        let now = nowUnixMicros()
        let inbox = topics.inboxTopic(day: RendezvousTopics.day(unixSeconds: now / 1_000_000))
        let replyTopic = RendezvousTopics.replyTopic(token: replyToken)
        let offer = RendezvousMessage.offer(.init(timestampMicros: now, nonce: nonce, replyToken: replyToken,
                                                  flags: reach.preference == .direct ? .noRelay : [], ice: offerICE))
        let sealed: [UInt8]
        do {
            sealed = try RendezvousSeal.seal(offer, topic: inbox, sender: identity, recipient: hostKey, crypto: crypto)
        } catch {
            throw ReachError(.misconfigured, "cannot seal the offer: \(error)")
        }
        try await broker.setSubscriptions([replyTopic])
        try await broker.publish(topic: inbox, payload: sealed, timeout: reach.brokerTimeout)
        // The answer, or silence until the deadline (the host is off, or not subscribed there).
        let deadline = ContinuousClock.now + reach.answerTimeout
        let answer: RendezvousMessage.Answer? = await withTaskGroup(of: RendezvousMessage.Answer?.self) { group in
            group.addTask {
                for await event in broker.events {
                    guard case .message(let message) = event, message.topic == replyTopic else { continue }
                    guard case .answer(let answer)? = try? RendezvousSeal.open(message.payload, topic: replyTopic, recipient: identity,
                                                                                 sender: hostKey, crypto: crypto),
                          answer.nonce == nonce else { continue }
                    return answer
                }
                return nil
            }
            group.addTask {
                // The same sealed offer again now and then until answered: one published while
                // the host was reconnecting to the broker (or had not yet subscribed to a new
                // pairing's topic) is lost, and the host drops the copies of one it already saw.
                while ContinuousClock.now + reach.offerRepeat < deadline {
                    try? await Task.sleep(for: reach.offerRepeat)
                    guard !Task.isCancelled else { return nil }
                    try? await broker.publish(topic: inbox, payload: sealed, timeout: reach.brokerTimeout)
                }
                try? await Task.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let answer else {
            throw ReachError(.noAnswer, "the host did not answer through the rendezvous \(broker.url) within \(reach.answerTimeout) (is `zrc-host serve` running there with this rendezvous server?)")
        }
        switch answer.outcome {
        case .accepted(let ice, let relays): return (ice, relays)
        case .busy: throw ReachError(.busy, "the host is busy connecting other controllers; try again in a few seconds")
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private static func capture<T>(_ body: () async throws(ReachError) -> T) async -> Result<T, ReachError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
