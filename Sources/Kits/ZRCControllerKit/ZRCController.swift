public import Foundation
public import ZRCFrames
public import Logging
import ZRCNetworking
public import ZRCProtocol
public import ZRCStorage

/// Timeouts and identity strings of a controller.
public struct ControllerConfiguration: Sendable {
    public var agent: String
    public var connectTimeout: Duration
    public var handshakeTimeout: Duration
    public var keepaliveInterval: Duration
    public var deadPeerTimeout: Duration
    /// A JPEG decoder per session, for frame updates; nil for a controller that shows no screen.
    public var makeDecoder: (@Sendable () -> any RegionDecoder)?
    /// What this controller announces in `hello`; nil: everything it can do (every rect encoding
    /// and the cursor when it has a decoder, text input always).
    public var capabilities: Capabilities?
    /// Paths beyond the host's TCP addresses (rendezvous, ICE, relays).
    public var reach: ControllerReach
    /// Ask the host for its clipboard changes (announces `clipboard` in `hello`).
    public var wantsClipboard = false
    /// List, upload and download files (announces `fileTransfer`; the session's `files`).
    public var wantsFiles = false
    /// Track which pixels of the picture are exactly the host's (`ComposedFrame.isExact`): what a
    /// screenshot waits for.
    public var exactPictures = false
    /// The viewer acknowledges frames once it has shown them (`ControllerSession.acknowledgeFrames`)
    /// instead of the session acknowledging each as soon as it is decoded: a slow display (a
    /// browser tab) then slows the host rather than letting a backlog build up behind it.
    public var viewerAcknowledges = false

    public init(agent: String = "zrc-ctl/0.1 (linux)", connectTimeout: Duration = .seconds(5),
                handshakeTimeout: Duration = .seconds(10), keepaliveInterval: Duration = .seconds(5),
                deadPeerTimeout: Duration = .seconds(20), makeDecoder: (@Sendable () -> any RegionDecoder)? = nil,
                capabilities: Capabilities? = nil, reach: ControllerReach = ControllerReach()) {
        self.reach = reach
        self.agent = agent
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.keepaliveInterval = keepaliveInterval
        self.deadPeerTimeout = deadPeerTimeout
        self.makeDecoder = makeDecoder
        self.capabilities = capabilities
    }

    /// What `hello` announces.
    var announced: Capabilities {
        let base = capabilities ?? (makeDecoder == nil ? [.textInput] : [.jpegRects, .solidRects, .rawRects, .losslessRects, .copyRects, .losslessFrames, .cursorShape, .scaledPictures, .linkStats, .textInput, .extendedButtons, .monitors, .compactFrames, .sharedLosslessStream])
        return base.union(wantsClipboard ? .clipboard : []).union(wantsFiles ? .fileTransfer : [])
    }
}

/// The controller's core API: pair with hosts, open sessions with paired hosts.
public struct ZRCController: Sendable {
    public let knownHosts: KnownHostsStore
    public let controllerName: String
    public let identityKey: NoisePublicKey
    private let dialer: ControllerDialer
    private let reacher: HostReacher
    private let crypto: any NoiseCrypto
    private let reach: ControllerReach
    private let logger: Logger

    public init(identity: NoiseKeyPair, crypto: any NoiseCrypto, knownHosts: KnownHostsStore, controllerName: String,
                configuration: ControllerConfiguration = ControllerConfiguration(), logger: Logger) {
        self.knownHosts = knownHosts
        self.controllerName = controllerName
        self.crypto = crypto
        reach = configuration.reach
        self.logger = logger
        identityKey = identity.publicKey
        dialer = ControllerDialer(
            identity: identity, crypto: crypto, agent: configuration.agent, logger: logger,
            connectTimeout: configuration.connectTimeout, handshakeTimeout: configuration.handshakeTimeout,
            timings: ConnectionTimings(keepaliveInterval: configuration.keepaliveInterval,
                                       deadPeerTimeout: configuration.deadPeerTimeout),
            makeDecoder: configuration.makeDecoder, capabilities: configuration.announced, exactPictures: configuration.exactPictures,
            viewerAcknowledges: configuration.viewerAcknowledges)
        reacher = HostReacher(dialer: dialer,
                              rendezvous: RendezvousDialer(identity: identity, crypto: crypto, reach: configuration.reach, logger: logger),
                              reach: configuration.reach, crypto: crypto)
    }

    public func fingerprint(of key: NoisePublicKey) -> String { KeyDerivations.fingerprint(of: key, crypto: crypto) }

    /// Pairs with the host that issued `inviteText`, pins its key and stores it as `name`
    /// (default: the name the host announces).
    /// A different host already stored under the name is refused unless `replacing` is set, so a
    /// second machine with the same announced name never silently takes over a pinned key.
    public func pair(inviteText: String, name: String?, replacing: Bool = false, now: Date = Date()) async throws(ControllerError) -> KnownHost {
        let invite: Invite
        do {
            invite = try Invite(parsing: inviteText)
        } catch {
            throw ControllerError(.invalidInvite, error.message)
        }
        return try await pair(invite: invite, name: name, replacing: replacing, now: now, throughReach: false)
    }

    /// Pairs by a code read from the host's screen: finds the host waiting with it (LAN and
    /// rendezvous at once), proves the code with CPace, and runs the ordinary pairing with the
    /// invite both sides derived — over whatever path reaches the host, the rendezvous included.
    public func pair(code: PairingCode, name: String?, group: any CPaceGroup, replacing: Bool = false, within timeout: Duration = .seconds(15),
                     now: Date = Date(), progress: @escaping @Sendable (CodePairingProgress) -> Void = { _ in }) async throws(ControllerError)
        -> KnownHost {
        let invite = try await findHost(code: code, group: group, within: timeout, now: now, progress: progress)
        progress(.pairing)
        return try await pair(found: invite, name: name, replacing: replacing, now: now)
    }

    /// The first half of pairing by code: finds the host waiting with `code` and proves the code
    /// with CPace. The invite it returns names the host (its key, from CPace's authenticated
    /// data) and is redeemable by this controller alone for 120 s: show the host's name and
    /// fingerprint, then `pair(found:)`.
    public func findHost(code: PairingCode, group: any CPaceGroup, within timeout: Duration = .seconds(15), now: Date = Date(),
                         progress: @escaping @Sendable (CodePairingProgress) -> Void = { _ in }) async throws(ControllerError) -> Invite {
        let ad: ControllerPairingAD
        do {
            ad = try ControllerPairingAD(controllerKey: identityKey, name: controllerName.prefix(utf8Bytes: ControllerPairingAD.maxNameBytes))
        } catch {
            throw ControllerError(.invalidInvite, error.message)
        }
        let seeker = CodePairingSeeker(code: code, controllerAD: ad, group: group, crypto: crypto, reach: reach, brokers: reach.rendezvous,
                                       unixSeconds: UInt64(max(0, now.timeIntervalSince1970)), logger: logger, progress: progress)
        return try await seeker.seek(within: timeout)
    }

    /// The second half of pairing by code: pairs with the host `findHost` found, over whatever
    /// path reaches it, and stores it as `name` (default: the name it announced).
    public func pair(found invite: Invite, name: String?, replacing: Bool = false, now: Date = Date()) async throws(ControllerError) -> KnownHost {
        try await pair(invite: invite, name: name, replacing: replacing, now: now, throughReach: true)
    }

    private func pair(invite: Invite, name: String?, replacing: Bool, now: Date, throughReach: Bool) async throws(ControllerError) -> KnownHost {
        let nowSeconds = UInt64(max(0, now.timeIntervalSince1970))
        if invite.isExpired(atUnixSeconds: nowSeconds) {
            let expiry = Date(timeIntervalSince1970: TimeInterval(invite.expiresAt))
            throw ControllerError(.invalidInvite, "this invite expired at \(expiry.formatted(date: .abbreviated, time: .standard)); ask for a new one with `zrc-host pair`")
        }
        let localName = name ?? invite.hostName
        if let problem = DeviceName.problem(with: localName) {
            throw ControllerError(.invalidInvite, "cannot use `\(TerminalSafeText.sanitized(localName))` as the host's name: \(problem); choose one with --name")
        }
        let addresses = invite.addresses.map { HostPort(host: $0.host, port: $0.port) }
        let hostKey = invite.hostKey
        if !replacing, let existing = try? await knownHosts.host(named: localName), existing.publicKey != hostKey {
            throw ControllerError(.nameInUse, "another host (fingerprint \(fingerprint(of: existing.publicKey))) is already paired as "
                + "`\(TerminalSafeText.sanitized(localName))`: choose another name with --name, or replace it with --replace "
                + "(or `zrc-ctl forget \(TerminalSafeText.sanitized(localName))` first)")
        }
        let purpose: @Sendable () -> ControllerHandshake.Purpose = { .pair(inviteID: invite.inviteID, secret: invite.secret) }
        let session: ControllerSession
        if throughReach {
            let servers = invite.servers
            let candidate = KnownHost(name: localName, hostName: invite.hostName, publicKey: hostKey, addresses: addresses.map(\.description),
                                      pairedAt: now, lastSeen: nil, rendezvousUrls: servers.filter { $0.scheme == .mqtt }.map(\.text),
                                      relayUrls: servers.filter { $0.scheme == .turn }.map(\.text),
                                      stunUrls: servers.filter { $0.scheme == .stun }.map(\.text))
            session = try await reacher.connect(to: candidate, purpose: purpose, nowUnixMicros: { WireClock.unixMicros() })
        } else {
            session = try await dialer.open(addresses: addresses, hostKey: hostKey, purpose: purpose)
        }
        try await session.send(.pairRequest(controllerName: controllerName))
        let hostName = try await Self.awaitPairAccepted(session)
        // Sent before pairAccepted: what a relay-only controller needs for its first offer.
        let relayCredentials = await session.relayCredentials
        // The trust store keeps whole seconds.
        let pairedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let servers = invite.servers
        // The address the pairing went through leads: the one a key mismatch is believed at.
        var stored = addresses.map(\.description)
        if case .tcp(let working) = session.path, let index = stored.firstIndex(of: working) {
            stored.insert(stored.remove(at: index), at: 0)
        }
        var host = KnownHost(name: localName, hostName: hostName, publicKey: hostKey,
                             addresses: stored, pairedAt: pairedAt, lastSeen: pairedAt,
                             rendezvousUrls: servers.filter { $0.scheme == .mqtt }.map(\.text),
                             relayUrls: servers.filter { $0.scheme == .turn }.map(\.text),
                             stunUrls: servers.filter { $0.scheme == .stun }.map(\.text), relayCredentials: relayCredentials)
        if case .tcp = session.path { host.lastPath = .tcp } else { host.lastPath = .rendezvous }
        do {
            try await knownHosts.add(host)
        } catch {
            throw ControllerError(.storage, "paired, but could not save the host: \(error)")
        }
        return host
    }

    private static func awaitPairAccepted(_ session: ControllerSession) async throws(ControllerError) -> String {
        for await event in session.events {
            switch event {
            case .message(.pairAccepted(let hostName)):
                return TerminalSafeText.sanitized(hostName)
            case .message(.close(_, let text)), .ended(.remote(_, let text)):
                throw ControllerError(.closedByHost, "the host ended the pairing: \(TerminalSafeText.sanitized(text))")
            case .ended(let end):
                throw ControllerError(.connectionLost, "the pairing connection ended before the host confirmed: \(end)")
            case .message:
                continue
            }
        }
        throw ControllerError(.connectionLost, "the pairing connection ended before the host confirmed")
    }

    /// Opens an authenticated session with the paired host `name`.
    public func connect(to name: String, viewOnly: Bool = false) async throws(ControllerError) -> ControllerSession {
        let host: KnownHost
        do {
            host = try await knownHosts.host(named: name)
        } catch {
            throw ControllerError(.storage, error.description)
        }
        let session: ControllerSession
        do {
            let store = knownHosts
            let keep: @Sendable ([RelayCredential]) async -> Void = { credentials in
                try? await store.keepRelayCredentials(named: name, credentials, nowUnixSeconds: WireClock.unixMicros() / 1_000_000)
            }
            session = try await reacher.connect(to: host, purpose: { .session(requested: viewOnly ? .viewOnly : []) },
                                                nowUnixMicros: { WireClock.unixMicros() }, keepRelayCredentials: keep)
            await session.keepRelayCredentials(keep)
        } catch {
            if case .rejected(.hostKeyMismatch) = error.kind {
                throw ControllerError(error.kind, error.message.replacingOccurrences(of: "NAME", with: name))
            }
            throw error
        }
        if case .tcp(let address) = session.path {
            try? await knownHosts.markSeen(named: name, at: Date(), workingAddress: address, path: .tcp)
        } else {
            try? await knownHosts.markSeen(named: name, at: Date(), path: .rendezvous)
        }
        return session
    }
}
