import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCReach

/// Where controllers find one open code: an announcement at every configured rendezvous broker
/// (retained, at the topic of the locator's day token) and, on a host reachable from the LAN, a
/// `_zrc-pair._tcp` service whose TXT names only the token, with a listener of its own for the
/// sealed exchange (`CodePairingLink`). Everything that arrives goes to the desk, which holds the
/// code's gate.
actor CodePairingMeeting {
    enum ClaimError: Error, CustomStringConvertible {
        /// Another host waits with this locator at a broker: pick another.
        case locatorTaken
        case failed(String)

        var description: String {
            switch self {
            case .locatorTaken: "the locator is taken at a broker"
            case .failed(let reason): reason
            }
        }
    }

    /// LAN connections one code serves at once, and how long each may take.
    static let maximumLanConnections = 8
    static let lanConnectionTimeout: Duration = .seconds(30)
    /// How far either clock may be from the other around midnight: the neighbouring day's token
    /// is announced too while within this.
    static let daySlackSeconds: UInt64 = 300

    private let desk: CodePairingDesk
    private let locator: Int
    private let sid: [UInt8]
    private let expiresAt: UInt64
    private let tokens: [[UInt8]]
    private let configuration: HostServerConfiguration
    private let crypto: any NoiseCrypto
    private let host: HostPort?
    private let logger: Logger
    private var brokers: [any RendezvousBrokerClient] = []
    private var lanConnections = 0

    init(desk: CodePairingDesk, code: PairingCode, sid: [UInt8], expiresAt: UInt64, group: any CPaceGroup,
         configuration: HostServerConfiguration, crypto: any NoiseCrypto, host: HostPort?, logger: Logger) {
        self.desk = desk
        self.crypto = crypto
        locator = code.locator
        self.sid = sid
        self.expiresAt = expiresAt
        self.configuration = configuration
        self.host = host
        self.logger = logger
        let now = configuration.unixSeconds
        let first = RendezvousTopics.day(unixSeconds: now - min(now, Self.daySlackSeconds))
        let last = RendezvousTopics.day(unixSeconds: expiresAt + Self.daySlackSeconds)
        tokens = (first...last).map { PairingMeetingPoint.token(code: code, day: $0, group: group) }
    }

    private var announcement: [UInt8] { PairingMeetingMessage.announcement(sid: sid, expiresAt: expiresAt).bytes }

    /// Announces the code at every broker, unless one already holds another host's announcement
    /// for this locator; returns where it was announced. The LAN needs no claim: a service per code.
    func claim() async throws(ClaimError) -> [String] {
        var points: [String] = []
        if let host, !host.isLoopback, configuration.lanDiscovery != nil { points.append("LAN") }
        guard let reach = configuration.reach else {
            guard !points.isEmpty else {
                throw .failed("no meeting point for a code: the host listens on loopback only and has no rendezvous broker")
            }
            return points
        }
        for url in reach.rendezvous {
            do {
                let client = try await reach.brokerMaker.connect(to: url, clientID: reach.clientID(), persistent: true, timeout: .seconds(5))
                brokers.append(client)
                if try await anotherHostWaits(at: client) { throw ClaimError.locatorTaken }
                for token in tokens {
                    try await client.publish(topic: PairingMeetingPoint.announcementTopic(token: token), payload: announcement,
                                             retain: true, timeout: .seconds(5))
                }
                points.append(url.text)
            } catch let error as ClaimError {
                await withdraw()
                throw error
            } catch {
                logger.warning("pairing code: not announced at \(url): \(error)")
            }
        }
        guard !points.isEmpty else { throw .failed("no meeting point for a code: no rendezvous broker answered and the LAN is not used") }
        return points
    }

    /// Subscribes to the announcement topics and to a probe topic of its own, then publishes to
    /// the probe: the broker sends retained messages on subscribing, so once the probe is back,
    /// any announcement that was there has arrived before it.
    private func anotherHostWaits(at client: any RendezvousBrokerClient) async throws -> Bool {
        let probe = PairingMeetingPoint.topic(token: tokens[0]) + "/probe/" + Hex.encode(configuration.randomSecret(16).copyBytes())
        let announcements = Set(tokens.map { PairingMeetingPoint.announcementTopic(token: $0) })
        try await client.setSubscriptions(announcements.union([probe]))
        let events = client.events
        let waiter = Task { () -> Bool in
            for await event in events {
                guard case .message(let message) = event else { continue }
                if message.topic == probe { return false }
                if announcements.contains(message.topic), !message.payload.isEmpty, message.payload != self.announcement { return true }
            }
            return false
        }
        try await client.publish(topic: probe, payload: [0], timeout: .seconds(5))
        let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { await waiter.value }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                throw ClaimError.failed("the broker \(client.url) did not echo a probe within 10 s")
            }
            defer { group.cancelAll(); waiter.cancel() }
            return try await group.next() ?? false
        }
        return taken
    }

    /// Serves the meeting points until cancelled (the code paired, ended or was withdrawn), then
    /// withdraws the announcements.
    func serve() async {
        await withDiscardingTaskGroup { group in
            for client in brokers {
                group.addTask { await self.serveBroker(client) }
            }
            if let host, !host.isLoopback, let discovery = configuration.lanDiscovery {
                group.addTask { await self.serveLan(discovery: discovery, host: host.host) }
            }
        }
        await withdraw()
    }

    private func withdraw() async {
        let clients = brokers
        brokers = []
        for client in clients {
            for token in tokens {
                // An empty retained payload removes the announcement.
                try? await client.publish(topic: PairingMeetingPoint.announcementTopic(token: token), payload: [], retain: true, timeout: .seconds(2))
            }
            await client.close()
        }
    }

    // MARK: Broker

    private func serveBroker(_ client: any RendezvousBrokerClient) async {
        let filters = Set(tokens.map { PairingMeetingPoint.controllersFilter(token: $0) })
        do {
            try await client.setSubscriptions(filters)
        } catch {
            logger.warning("pairing code: cannot listen at \(client.url): \(error.message)")
            return
        }
        for await event in client.events {
            guard !Task.isCancelled else { return }
            guard case .message(let message) = event else { continue }
            await handle(message, from: client)
        }
    }

    private func handle(_ message: BrokerMessage, from client: any RendezvousBrokerClient) async {
        guard let (token, run) = tokens.lazy.compactMap({ token in
            PairingMeetingPoint.run(inControllerTopic: message.topic, token: token).map { (token, $0) }
        }).first else { return }
        guard let decoded = try? PairingMeetingMessage(decoding: message.payload) else { return }
        guard let number = await desk.run(forBrokerRun: run, locator: locator) else { return }
        let reply: PairingMeetingMessage
        switch decoded {
        case .start(let start): reply = await desk.start(locator: locator, run: number, message: start)
        case .confirm(let tag): reply = await desk.confirm(locator: locator, run: number, tag: tag)
        case .announcement, .answer, .outcome: return
        }
        try? await client.publish(topic: PairingMeetingPoint.hostTopic(token: token, run: run), payload: reply.bytes, timeout: .seconds(5))
    }

    // MARK: LAN

    private func serveLan(discovery: any LanDiscovery, host: String) async {
        let listener: NIOAsyncChannel<TCPEndpoint.Connection, Never>
        do {
            listener = try await TCPEndpoint.listen(host: host, port: 0)
        } catch {
            logger.warning("pairing code: no LAN meeting point: \(error)")
            return
        }
        let port = UInt16(listener.channel.localAddress?.port ?? 0)
        let name = "zrc-pair-" + Hex.encode(configuration.randomSecret(4).copyBytes())
        let txt = ["v": "1", "t": tokens.map(Hex.encode).joined(separator: ",")]
        let publication: (any LanPublication)?
        do {
            publication = try discovery.publish(.pairing, name: name, port: port, txt: txt)
        } catch {
            logger.notice("pairing code: not on the LAN: \(error.message)")
            publication = nil
        }
        await withTaskCancellationHandler {
            try? await listener.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        guard self.takeLanSlot() else {
                            try? await connection.channel.close()
                            continue
                        }
                        group.addTask {
                            await self.serveLanConnection(connection)
                            await self.releaseLanSlot()
                        }
                    }
                }
            }
        } onCancel: {
            listener.channel.close(promise: nil)
        }
        await publication?.stop()
    }

    private func takeLanSlot() -> Bool {
        guard lanConnections < Self.maximumLanConnections else { return false }
        lanConnections += 1
        return true
    }

    private func releaseLanSlot() { lanConnections -= 1 }

    /// One controller on the LAN: the link's handshake, the announcement, its start and its
    /// confirmation; a run answered and not confirmed stays counted.
    private func serveLanConnection(_ connection: TCPEndpoint.Connection) async {
        let deadline = TCPEndpoint.closeAfter(Self.lanConnectionTimeout, channel: connection.channel)
        defer { _ = deadline.cancel() }
        let run = await desk.newRun()
        var answered = false
        var confirmed = false
        do {
            var link = try CodePairingLink.host(crypto: crypto)
            try await connection.executeThenClose { inbound, outbound in
                reading: for try await buffer in inbound {
                    for event in try link.receive(buffer.readableBytesView) {
                        switch event {
                        case .send(let bytes):
                            try await outbound.write(ByteBuffer(bytes: bytes))
                        case .ready:
                            try await outbound.write(ByteBuffer(bytes: try link.seal(.announcement(sid: sid, expiresAt: expiresAt))))
                        case .message(.start(let start)):
                            let reply = await desk.start(locator: locator, run: run, message: start)
                            if case .answer = reply { answered = true }
                            try await outbound.write(ByteBuffer(bytes: try link.seal(reply)))
                            if case .outcome = reply { break reading }
                        case .message(.confirm(let tag)):
                            let reply = await desk.confirm(locator: locator, run: run, tag: tag)
                            confirmed = true
                            try await outbound.write(ByteBuffer(bytes: try link.seal(reply)))
                            break reading
                        case .message(.announcement), .message(.answer), .message(.outcome):
                            break reading
                        }
                    }
                }
            }
        } catch {
            logger.debug("pairing code: a LAN connection ended: \(error)")
        }
        if answered && !confirmed { await desk.abandon(locator: locator, run: run) }
    }
}
