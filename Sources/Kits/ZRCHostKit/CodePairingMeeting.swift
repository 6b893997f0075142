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
    /// How long a new code looks on the LAN for another host waiting with its locator.
    static let lanLookTime: Duration = .milliseconds(500)

    private let desk: CodePairingDesk
    /// The code's ID at the desk.
    private let id: UInt64
    private let sid: [UInt8]
    private let expiresAt: UInt64
    private let tokens: [[UInt8]]
    private let configuration: HostServerConfiguration
    private let crypto: any NoiseCrypto
    private let host: HostPort?
    private let logger: Logger
    private var brokers: [any RendezvousBrokerClient] = []
    private var lanConnections = 0

    init(desk: CodePairingDesk, id: UInt64, code: PairingCode, sid: [UInt8], expiresAt: UInt64, group: any CPaceGroup,
         configuration: HostServerConfiguration, crypto: any NoiseCrypto, host: HostPort?, logger: Logger) {
        self.desk = desk
        self.crypto = crypto
        self.id = id
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
    /// for this locator; returns where it was announced. On the LAN it looks for another host's service with its token
    /// the same way.
    func claim() async throws(ClaimError) -> [String] {
        var points: [String] = []
        if let host, !host.isLoopback, let discovery = configuration.lanDiscovery {
            // Another host on this LAN waiting with the same locator would take a controller's
            // one run: look for its service first (avahi-daemon's cache answers at once).
            let hex = Set(tokens.map(Hex.encode))
            let waiting: @Sendable (LanHost) -> Bool = { found in
                (found.txt["t"] ?? "").split(separator: ",").contains { hex.contains(String($0)) }
            }
            if let seen = try? await discovery.browse(.pairing, for: Self.lanLookTime, until: { $0.contains(where: waiting) }),
               seen.contains(where: waiting) {
                throw .locatorTaken
            }
            points.append("LAN")
        }
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
        // The controllers' topics too, before anything is announced: a controller may start the
        // moment it sees the announcement (their messages wait in the client's buffer).
        try await client.setSubscriptions(announcements.union([probe]).union(controllersFilters))
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

    /// Takes the announcements back and closes the brokers (also for a claim whose code went).
    func withdraw() async {
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

    private var controllersFilters: Set<String> { Set(tokens.map { PairingMeetingPoint.controllersFilter(token: $0) }) }

    private func serveBroker(_ client: any RendezvousBrokerClient) async {
        do {
            // The announcement topics and the probe go; the controllers' topics stay.
            try await client.setSubscriptions(controllersFilters)
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
        let reply: PairingMeetingMessage
        switch decoded {
        case .start(let start):
            guard let answer = await desk.start(id: id, run: nil, brokerRun: run, message: start) else { return }
            reply = answer
        case .confirm(let tag):
            // Only a run this host answered has anything to confirm: others cost nothing.
            guard let number = await desk.answeredRun(id: id, brokerRun: run) else { return }
            reply = await desk.confirm(id: id, run: number, tag: tag)
        case .announcement, .answer, .outcome:
            return
        }
        try? await client.publish(topic: PairingMeetingPoint.hostTopic(token: token, run: run), payload: reply.bytes, timeout: .seconds(5))
        if case .outcome = reply { await desk.outcomeDelivered(id: id) }
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
                            guard let reply = await desk.start(id: id, run: run, message: start) else { break reading }
                            if case .answer = reply { answered = true }
                            try await outbound.write(ByteBuffer(bytes: try link.seal(reply)))
                            if case .outcome = reply { break reading }
                        case .message(.confirm(let tag)):
                            guard answered else { break reading }
                            let reply = await desk.confirm(id: id, run: run, tag: tag)
                            confirmed = true
                            try await outbound.write(ByteBuffer(bytes: try link.seal(reply)))
                            await desk.outcomeDelivered(id: id)
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
        if answered && !confirmed { await desk.abandon(id: id, run: run) }
    }
}
