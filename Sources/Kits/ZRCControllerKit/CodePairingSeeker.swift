import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCReach

/// Finds the host waiting with a pairing code and proves the code to it: on the LAN
/// (`_zrc-pair._tcp` whose TXT holds the locator's day token) and at every rendezvous broker at
/// once. The first announcement found gets the one CPace run (a second run would cost the host a
/// guess); the others stop. The result is the invite the ordinary pairing then uses.
struct CodePairingSeeker: Sendable {
    let code: PairingCode
    let controllerAD: ControllerPairingAD
    let group: any CPaceGroup
    let crypto: any NoiseCrypto
    let reach: ControllerReach
    let brokers: [ReachURL]
    let unixSeconds: UInt64
    let logger: Logger
    let progress: @Sendable (CodePairingProgress) -> Void

    /// How long the exchange may take once the host was found.
    static let exchangeTimeout: Duration = .seconds(20)

    private var token: [UInt8] {
        PairingMeetingPoint.token(code: code, day: RendezvousTopics.day(unixSeconds: unixSeconds), group: group)
    }

    func seek(within timeout: Duration) async throws(ControllerError) -> Invite {
        let lan = reach.preference.triesTCP ? reach.lan : nil
        let brokerMaker = reach.canRendezvous ? reach.brokerMaker : nil
        let brokers = brokerMaker == nil ? [] : brokers
        guard lan != nil || !brokers.isEmpty else {
            throw ControllerError(.unreachable, "no way to find the host: LAN discovery is off and no rendezvous server is configured "
                + "(set rendezvousUrls in controller.json)")
        }
        let first = FirstClaim()
        let token = token
        let result = await withTaskGroup(of: Result<Invite, ControllerError>?.self) { tasks -> Result<Invite, ControllerError>? in
            if let lan {
                tasks.addTask { await self.viaLAN(lan, token: token, claim: first, timeout: timeout) }
            }
            if let brokerMaker {
                for url in brokers {
                    tasks.addTask { await self.viaBroker(url, maker: brokerMaker, token: token, claim: first, timeout: timeout) }
                }
            }
            // The path that claimed the code decides; the others end without a result.
            for await outcome in tasks {
                if let outcome {
                    tasks.cancelAll()
                    return outcome
                }
            }
            return nil
        }
        guard let result else {
            throw ControllerError(.unreachable, "no host is waiting with this code (looked on the LAN\(brokers.isEmpty ? "" : " and at \(brokers.count) rendezvous server\(brokers.count == 1 ? "" : "s")") "
                + "for \(timeout)): check the code, and that `zrc-host pair --code` still shows it")
        }
        return try result.get()
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    // MARK: LAN

    private func viaLAN(_ lan: any LanDiscovery, token: [UInt8], claim: FirstClaim, timeout: Duration) async -> Result<Invite, ControllerError>? {
        let hex = Hex.encode(token)
        let matches: @Sendable (LanHost) -> Bool = { host in (host.txt["t"] ?? "").split(separator: ",").contains { $0 == hex } }
        guard let found = try? await lan.browse(.pairing, for: timeout, until: { $0.contains(where: matches) }).first(where: matches)
        else { return nil }
        for endpoint in found.endpoints {
            guard !Task.isCancelled else { return nil }
            guard let connection = try? await TCPEndpoint.connect(host: endpoint.host, port: Int(endpoint.port), timeout: .seconds(3)) else { continue }
            return await exchange(over: connection, where: "on the LAN", claim: claim)
        }
        return nil
    }

    private func exchange(over connection: TCPEndpoint.Connection, where place: String, claim: FirstClaim) async -> Result<Invite, ControllerError>? {
        let deadline = TCPEndpoint.closeAfter(Self.exchangeTimeout, channel: connection.channel)
        defer { _ = deadline.cancel() }
        var run = CodePairingRun(code: code, controllerAD: controllerAD)
        do {
            var link = try CodePairingLink.controller(crypto: crypto)
            let opening = try link.opening()
            return try await connection.executeThenClose { inbound, outbound -> Result<Invite, ControllerError>? in
                try await outbound.write(ByteBuffer(bytes: opening))
                for try await buffer in inbound {
                    for event in try link.receive(buffer.readableBytesView) {
                        guard case .message(let message) = event else { continue }
                        if case .announcement = message {
                            guard await claim.take() else { return nil }
                            progress(.found(place))
                        }
                        switch run.receive(message, group: group) {
                        case .publish(let reply):
                            if case .start = reply { progress(.proving) }
                            try await outbound.write(ByteBuffer(bytes: try link.seal(reply)))
                        case .paired(let invite): return .success(invite)
                        case .failed(let reason): return .failure(ControllerError(.invalidInvite, reason))
                        case .ignore: continue
                        }
                    }
                }
                if case .waitingForHost = run.state { return nil }
                return .failure(ControllerError(.connectionLost, "the host closed the pairing exchange before it ended"))
            }
        } catch {
            if case .started = run.state { return .failure(ControllerError(.connectionLost, "the pairing exchange \(place) broke off: \(error)")) }
            if case .confirmed = run.state { return .failure(ControllerError(.connectionLost, "the pairing exchange \(place) broke off: \(error)")) }
            return nil
        }
    }

    // MARK: Broker

    private func viaBroker(_ url: ReachURL, maker: any RendezvousBrokerMaker, token: [UInt8], claim: FirstClaim,
                           timeout: Duration) async -> Result<Invite, ControllerError>? {
        let runID = Self.randomBytes(PairingMeetingPoint.runLength)
        let announcementTopic = PairingMeetingPoint.announcementTopic(token: token)
        let answerTopic = PairingMeetingPoint.hostTopic(token: token, run: runID)
        let client: any RendezvousBrokerClient
        do {
            client = try await maker.connect(to: url, clientID: "zrc-c-" + Hex.encode(Self.randomBytes(8)), persistent: false,
                                             timeout: reach.brokerTimeout)
        } catch {
            logger.info("pairing code: \(error.message)")
            return nil
        }
        defer { Task { await client.close() } }
        let events = client.events
        do {
            // The answers' topic first: the host may answer as soon as the start is out.
            try await client.setSubscriptions([announcementTopic, answerTopic])
        } catch {
            logger.info("pairing code: \(error.message)")
            return nil
        }
        var run = CodePairingRun(code: code, controllerAD: controllerAD)
        // Until the host is found: then the exchange has its own bound (`exchangeTimeout`).
        let expiry = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await client.close()
        }
        var exchangeBound: Task<Void, Never>?
        defer {
            expiry.cancel()
            exchangeBound?.cancel()
        }
        var claimed = false
        for await event in events {
            guard case .message(let delivered) = event, delivered.topic == announcementTopic || delivered.topic == answerTopic,
                  let message = try? PairingMeetingMessage(decoding: delivered.payload) else { continue }
            if case .announcement = message {
                guard delivered.topic == announcementTopic, !claimed else { continue }
                guard await claim.take() else { return nil }
                claimed = true
                expiry.cancel()
                exchangeBound = Task {
                    guard (try? await Task.sleep(for: Self.exchangeTimeout)) != nil else { return }
                    await client.close()
                }
                progress(.found(url.text))
            } else if delivered.topic != answerTopic {
                continue
            }
            switch run.receive(message, group: group) {
            case .publish(let reply):
                if case .start = reply { progress(.proving) }
                do {
                    try await client.publish(topic: PairingMeetingPoint.controllerTopic(token: token, run: runID), payload: reply.bytes,
                                             timeout: .seconds(5))
                } catch {
                    return .failure(ControllerError(.connectionLost, "the pairing exchange at \(url) broke off: \(error.message)"))
                }
            case .paired(let invite): return .success(invite)
            case .failed(let reason): return .failure(ControllerError(.invalidInvite, reason))
            case .ignore: continue
            }
        }
        return claimed ? .failure(ControllerError(.connectionLost, "the connection to \(url) ended during the pairing exchange")) : nil
    }
}

/// What a person waiting for pairing by code is told.
public enum CodePairingProgress: Sendable, Equatable {
    /// The host was found (on the LAN, or at this broker).
    case found(String)
    /// The code is being proven.
    case proving
    /// The code was accepted; the pairing handshake runs.
    case pairing
}

/// The first path to find the host's announcement runs CPace; the others step aside.
actor FirstClaim {
    private var taken = false

    func take() -> Bool {
        defer { taken = true }
        return !taken
    }
}
