import Logging
import ZRCNetworking
import ZRCProtocol
import ZRCStorage
import ZRCReach

/// Finds a paired host by every way the preference allows, in parallel where that saves time
/// (happy eyeballs): its TCP addresses (the last one that worked leads) and LAN discovery at once,
/// and after a short head start, or as soon as TCP has failed, the rendezvous with ICE. The
/// first session wins; a later one is closed.
struct HostReacher: Sendable {
    let dialer: ControllerDialer
    let rendezvous: RendezvousDialer
    let reach: ControllerReach
    let crypto: any NoiseCrypto

    /// `keepRelayCredentials` is told of credentials a sealed answer brought.
    func connect(to host: KnownHost, purpose: @escaping @Sendable () -> ControllerHandshake.Purpose,
                 nowUnixMicros: @escaping @Sendable () -> UInt64,
                 keepRelayCredentials: @escaping @Sendable ([RelayCredential]) async -> Void = { _ in }) async throws(ControllerError)
        -> ControllerSession {
        let addresses = host.addresses.compactMap { HostPort(parsing: $0) }
        // The first address is where a session last opened (pairing and every session put it there).
        let confirmed = host.lastSeen == nil ? nil : addresses.first
        let (brokers, ice) = reach.servers(forHost: host.reachURLs, credentials: host.relayCredentials,
                                           nowUnixSeconds: nowUnixMicros() / 1_000_000)
        let tryTCP = reach.preference.triesTCP && !addresses.isEmpty
        let tryRendezvous = reach.canRendezvous && !brokers.isEmpty
        let lan = reach.preference.triesTCP ? reach.lan : nil
        guard tryTCP || tryRendezvous else {
            throw ControllerError(.unreachable, "transportPreference \(reach.preference.rawValue) rules out the host's TCP addresses, "
                + "and no rendezvous server is known for it (set rendezvousUrls, or pair again with a host that has them)")
        }
        let race = ConnectRace(attempts: (tryTCP ? 1 : 0) + (tryRendezvous ? 1 : 0) + (lan != nil ? 1 : 0))
        return try await race.run { () async -> Void in
            if let lan {
                Task {
                    do throws(ControllerError) {
                        let found = try await findOnLAN(host, lan: lan, known: addresses, nowUnixSeconds: nowUnixMicros() / 1_000_000)
                        let session = try await dialer.open(addresses: found, hostKey: host.publicKey, purpose: purpose)
                        await race.succeeded(session)
                    } catch {
                        await race.failed(.lan, error)
                    }
                }
            }
            if tryTCP {
                Task {
                    do throws(ControllerError) {
                        let session = try await dialer.open(addresses: addresses, hostKey: host.publicKey, confirmed: confirmed, purpose: purpose)
                        await race.succeeded(session)
                    } catch {
                        await race.failed(.tcp, error)
                    }
                }
            }
            if tryRendezvous {
                Task {
                    // A host last reached through the rendezvous (behind a NAT) gets it at once: its
                    // stored LAN address may only hang.
                    if tryTCP, host.lastPath != .rendezvous { await race.tcpHeadStart(reach.tcpHeadStart) }
                    guard await race.stillWanted else { return await race.failed(.rendezvous, ControllerError(.closed, "not needed")) }
                    do {
                        let stream = try await rendezvous.open(hostKey: host.publicKey, brokers: brokers, ice: ice, nowUnixMicros: nowUnixMicros,
                                                               keepRelayCredentials: keepRelayCredentials)
                        let agent = stream.agent
                        let session = try await dialer.handshake(over: stream.connection, label: stream.path.description, path: stream.path,
                                                                 hostKey: host.publicKey, purpose: purpose()) { await agent.close() }
                        await race.succeeded(session)
                    } catch let error as ReachError {
                        await race.failed(.rendezvous, ControllerError(error.kind == .busy ? .handshakeFailed : .unreachable, error.message))
                    } catch let error as ControllerError {
                        await race.failed(.rendezvous, error)
                    } catch {
                        await race.failed(.rendezvous, ControllerError(.unreachable, "\(error)"))
                    }
                }
            }
        }
    }
}

extension HostReacher {
    /// Addresses where the host announces itself on the LAN, other than those already tried.
    func findOnLAN(_ host: KnownHost, lan: any LanDiscovery, known: [HostPort], nowUnixSeconds: UInt64) async throws(ControllerError) -> [HostPort] {
        let key = host.publicKey
        let crypto = self.crypto
        let isHost: @Sendable (LanHost) -> Bool = { candidate in
            candidate.txt[LanHint.txtKey].map { LanHint.matches($0, hostKey: key, unixSeconds: nowUnixSeconds, crypto: crypto) } ?? false
        }
        let seen: [LanHost]
        do {
            seen = try await lan.browse(for: reach.lanBrowse) { $0.contains(where: isHost) }
        } catch {
            throw ControllerError(.unreachable, error.message)
        }
        let found = seen.filter(isHost).flatMap(\.endpoints).filter { !known.contains($0) }
        guard !found.isEmpty else {
            throw ControllerError(.unreachable, seen.contains(where: isHost)
                ? "the host announces only the addresses already tried"
                : "the host does not announce itself on this LAN")
        }
        return found
    }
}

/// The first session to open wins; every attempt reports once.
actor ConnectRace {
    enum Way: String {
        case tcp = "direct TCP"
        case lan = "LAN discovery"
        case rendezvous
    }

    private var remaining: Int
    private var result: CheckedContinuation<ControllerSession, any Error>?
    private var done = false
    private var failures: [(Way, ControllerError)] = []
    private var tcpEnded = false
    private var headStartWaiter: CheckedContinuation<Void, Never>?

    init(attempts: Int) { remaining = attempts }

    var stillWanted: Bool { !done }

    func run(_ start: @escaping @Sendable () async -> Void) async throws(ControllerError) -> ControllerSession {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                result = continuation
                Task { await start() }
            }
        } catch let error as ControllerError {
            throw error
        } catch {
            throw ControllerError(.unreachable, "\(error)")
        }
    }

    func succeeded(_ session: ControllerSession) async {
        remaining -= 1
        guard !done else {
            await session.close(text: "another path to the host was faster")
            return
        }
        done = true
        endHeadStart()
        result?.resume(returning: session)
        result = nil
    }

    func failed(_ way: Way, _ error: ControllerError) {
        remaining -= 1
        if way == .tcp {
            tcpEnded = true
            endHeadStart()
        }
        guard !done else { return }
        failures.append((way, error))
        guard remaining == 0 else { return }
        done = true
        result?.resume(throwing: combined())
        result = nil
    }

    /// Waits `duration`, or less if TCP fails (or the race ends) first.
    func tcpHeadStart(_ duration: Duration) async {
        guard !tcpEnded, !done else { return }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
            await self?.endHeadStart()
        }
        await withCheckedContinuation { headStartWaiter = $0 }
        timer.cancel()
    }

    private func endHeadStart() {
        headStartWaiter?.resume()
        headStartWaiter = nil
    }

    /// A host's own refusal says most; otherwise every way's reason, so the user sees both
    /// what TCP and what the rendezvous ran into.
    private func combined() -> ControllerError {
        if let refusal = failures.first(where: { if case .rejected = $0.1.kind { true } else { false } }) { return refusal.1 }
        if failures.count == 1 { return failures[0].1 }
        let kind = failures.first { $0.1.kind != .unreachable }?.1.kind ?? .unreachable
        return ControllerError(kind, failures.map { "\($0.0.rawValue): \($0.1.message)" }.joined(separator: "; "))
    }
}
