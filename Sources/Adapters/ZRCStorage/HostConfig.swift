public import ZRCProtocol

/// Which identity key store a program uses. The keyring is the default; the file store is an
/// explicit opt-in for hosts run as services without a logged-in keyring.
public enum KeyStoreChoice: String, Codable, Sendable, CaseIterable {
    case keyring
    case file
}

/// Which way files may move (`fileTransfer` in host.json).
public enum FileTransferChoice: String, Codable, Sendable, CaseIterable {
    case off
    case upload
    case download
    case both
}

/// `host.json` (schema: Schemas/host-config.schema.json). Every field is optional in the file;
/// a missing file means all defaults.
public struct HostConfig: Codable, Sendable, Equatable {
    /// Name announced to controllers; defaults to the machine's host name.
    public var hostName: String?
    public var listen: String
    public var keyStore: KeyStoreChoice
    public var inviteLifetimeSeconds: Int
    public var handshakeTimeoutSeconds: Int
    public var keepaliveIntervalSeconds: Int
    public var deadPeerTimeoutSeconds: Int
    /// How far a session handshake's timestamp may be from the host's clock, either way.
    public var maxClockSkewSeconds: Int
    /// Reach beyond the LAN (see README, "Reaching a host anywhere"): MQTT brokers the host
    /// listens on for offers, TURN relays and STUN servers for ICE, and which paths it accepts.
    public var rendezvousUrls: [String]
    public var relayUrls: [String]
    public var stunUrls: [String]
    public var transportPreference: TransportPreference
    /// Publish the host on the LAN with mDNS (Avahi), as `_zrc._tcp`.
    public var lanDiscovery: Bool
    /// Share the X clipboard (`CLIPBOARD`) with sessions in control, both ways.
    public var clipboard: Bool
    /// Share the `PRIMARY` selection (the mouse selection) too.
    public var clipboardPrimary: Bool
    /// Let view-only sessions (watchers) read the clipboard as well (they never set it).
    public var clipboardInViewOnly: Bool
    /// Show who is connected in a small window on the shared screen (off for unattended kiosks).
    public var indicator: Bool
    /// The key combination that ends every session at once (while the indicator is on).
    public var endSessionsKey: String
    /// A new session waits until the person at the host accepts it in the indicator.
    public var approveSessions: Bool
    /// How long a session waits for approval before it is refused.
    public var approvalTimeoutSeconds: Int
    /// The combinations that accept and refuse the oldest session waiting for approval.
    public var acceptSessionKey: String
    public var refuseSessionKey: String
    /// Which way sessions in control may move files: off, upload, download or both.
    public var fileTransfer: FileTransferChoice
    /// Every remote path resolves beneath this directory (nil: the host user's home).
    public var fileRoot: String?
    /// Where dropped files land, beneath `fileRoot` (nil: the XDG download directory, else ~/Downloads).
    public var uploadDirectory: String?
    /// The largest file a transfer moves, either way.
    public var maxFileBytes: UInt64
    public static let maxFileBytesRange: ClosedRange<UInt64> = 1...(1 << 44)

    public static let defaultEndSessionsKey = "ctrl+alt+shift+End"
    public static let defaultAcceptSessionKey = "ctrl+alt+shift+y"
    public static let defaultRefuseSessionKey = "ctrl+alt+shift+n"
    public static let approvalTimeoutRange = 10...600
    public static let inviteLifetimeRange = 30...86_400
    /// A pairing code is read out and typed at once: minutes, not days.
    public static let codeLifetimeRange = 60...3_600
    public static let defaultInviteLifetimeSeconds = 600

    public init() {
        hostName = nil
        listen = "0.0.0.0:\(HostPort.defaultPort)"
        keyStore = .keyring
        inviteLifetimeSeconds = Self.defaultInviteLifetimeSeconds
        handshakeTimeoutSeconds = 5
        keepaliveIntervalSeconds = 5
        deadPeerTimeoutSeconds = 20
        maxClockSkewSeconds = 120
        rendezvousUrls = []
        relayUrls = []
        stunUrls = []
        transportPreference = .auto
        lanDiscovery = true
        clipboard = true
        clipboardPrimary = false
        clipboardInViewOnly = false
        indicator = true
        endSessionsKey = Self.defaultEndSessionsKey
        approveSessions = false
        approvalTimeoutSeconds = 60
        acceptSessionKey = Self.defaultAcceptSessionKey
        refuseSessionKey = Self.defaultRefuseSessionKey
        fileTransfer = .both
        fileRoot = nil
        uploadDirectory = nil
        maxFileBytes = 1 << 40
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case hostName, listen, keyStore, inviteLifetimeSeconds, handshakeTimeoutSeconds, keepaliveIntervalSeconds, deadPeerTimeoutSeconds,
             maxClockSkewSeconds, rendezvousUrls, relayUrls, stunUrls, transportPreference, lanDiscovery, clipboard, clipboardPrimary,
             clipboardInViewOnly, indicator, endSessionsKey, approveSessions, approvalTimeoutSeconds, acceptSessionKey, refuseSessionKey,
             fileTransfer, fileRoot, uploadDirectory, maxFileBytes
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = HostConfig()
        hostName = try container.decodeIfPresent(String.self, forKey: .hostName)
        if let hostName, let problem = DeviceName.problem(with: hostName) {
            throw DecodingError.dataCorruptedError(forKey: .hostName, in: container, debugDescription: problem)
        }
        listen = try container.decodeIfPresent(String.self, forKey: .listen) ?? defaults.listen
        guard HostPort(parsing: listen, allowingAnyPort: true) != nil else {
            throw DecodingError.dataCorruptedError(forKey: .listen, in: container,
                                                   debugDescription: "expected host:port, e.g. 0.0.0.0:7420")
        }
        keyStore = try container.decodeChoice(KeyStoreChoice.self, forKey: .keyStore) ?? defaults.keyStore
        inviteLifetimeSeconds = try container.decodeInRange(Self.inviteLifetimeRange, forKey: .inviteLifetimeSeconds) ?? defaults.inviteLifetimeSeconds
        handshakeTimeoutSeconds = try container.decodeInRange(1...60, forKey: .handshakeTimeoutSeconds) ?? defaults.handshakeTimeoutSeconds
        keepaliveIntervalSeconds = try container.decodeInRange(1...60, forKey: .keepaliveIntervalSeconds) ?? defaults.keepaliveIntervalSeconds
        deadPeerTimeoutSeconds = try container.decodeInRange(2...600, forKey: .deadPeerTimeoutSeconds) ?? defaults.deadPeerTimeoutSeconds
        maxClockSkewSeconds = try container.decodeInRange(10...3600, forKey: .maxClockSkewSeconds) ?? defaults.maxClockSkewSeconds
        rendezvousUrls = try container.decodeReachURLs(forKey: .rendezvousUrls, scheme: .mqtt)
        relayUrls = try container.decodeReachURLs(forKey: .relayUrls, scheme: .turn)
        stunUrls = try container.decodeReachURLs(forKey: .stunUrls, scheme: .stun)
        transportPreference = try container.decodeTransportPreference(forKey: .transportPreference) ?? defaults.transportPreference
        lanDiscovery = try container.decodeIfPresent(Bool.self, forKey: .lanDiscovery) ?? defaults.lanDiscovery
        clipboard = try container.decodeIfPresent(Bool.self, forKey: .clipboard) ?? defaults.clipboard
        clipboardPrimary = try container.decodeIfPresent(Bool.self, forKey: .clipboardPrimary) ?? defaults.clipboardPrimary
        clipboardInViewOnly = try container.decodeIfPresent(Bool.self, forKey: .clipboardInViewOnly) ?? defaults.clipboardInViewOnly
        indicator = try container.decodeIfPresent(Bool.self, forKey: .indicator) ?? defaults.indicator
        approveSessions = try container.decodeIfPresent(Bool.self, forKey: .approveSessions) ?? defaults.approveSessions
        approvalTimeoutSeconds = try container.decodeInRange(Self.approvalTimeoutRange, forKey: .approvalTimeoutSeconds) ?? defaults.approvalTimeoutSeconds
        endSessionsKey = try container.decodeIfPresent(String.self, forKey: .endSessionsKey) ?? defaults.endSessionsKey
        acceptSessionKey = try container.decodeIfPresent(String.self, forKey: .acceptSessionKey) ?? defaults.acceptSessionKey
        refuseSessionKey = try container.decodeIfPresent(String.self, forKey: .refuseSessionKey) ?? defaults.refuseSessionKey
        fileTransfer = try container.decodeChoice(FileTransferChoice.self, forKey: .fileTransfer) ?? defaults.fileTransfer
        fileRoot = try container.decodeIfPresent(String.self, forKey: .fileRoot)
        if let root = fileRoot, !root.hasPrefix("/") {
            throw DecodingError.dataCorruptedError(forKey: .fileRoot, in: container, debugDescription: "`\(root)` is not an absolute path")
        }
        uploadDirectory = try container.decodeIfPresent(String.self, forKey: .uploadDirectory)
        maxFileBytes = try container.decodeIfPresent(UInt64.self, forKey: .maxFileBytes) ?? defaults.maxFileBytes
        guard Self.maxFileBytesRange.contains(maxFileBytes) else {
            throw DecodingError.dataCorruptedError(forKey: .maxFileBytes, in: container, debugDescription: "\(maxFileBytes) is not 1…2^44 bytes")
        }
        var combinations: [KeyCombo] = []
        for (key, text) in [(CodingKeys.endSessionsKey, endSessionsKey), (.acceptSessionKey, acceptSessionKey), (.refuseSessionKey, refuseSessionKey)] {
            let combination: KeyCombo
            do {
                combination = try KeyCombo(parsing: text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.message)
            }
            guard !combinations.contains(combination) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                       debugDescription: "`\(text)` is already the combination of another of the indicator's keys")
            }
            combinations.append(combination)
        }
        guard deadPeerTimeoutSeconds > keepaliveIntervalSeconds else {
            throw DecodingError.dataCorruptedError(
                forKey: .deadPeerTimeoutSeconds, in: container,
                debugDescription: "must be longer than keepaliveIntervalSeconds (\(keepaliveIntervalSeconds))")
        }
    }
}

/// `controller.json` (schema: Schemas/controller-config.schema.json).
public struct ControllerConfig: Codable, Sendable, Equatable {
    /// The name this controller gives itself when pairing; defaults to user@machine.
    public var controllerName: String?
    public var keyStore: KeyStoreChoice
    /// This controller's own servers, used besides those each host's invite named.
    public var rendezvousUrls: [String]
    public var relayUrls: [String]
    public var stunUrls: [String]
    public var transportPreference: TransportPreference
    /// Exchange clipboard text with hosts (the viewer's copy and paste, `zrc-ctl clipboard`).
    public var clipboard: Bool
    /// Let the viewer write every host copy into the terminal's clipboard without asking.
    public var clipboardFromHost: Bool
    /// The terminal viewer's renderer when `view` is given none.
    public var renderer: RendererChoice
    /// What a paste in the terminal viewer does at first (Ctrl+] p cycles).
    public var pasteMode: PasteModeChoice

    public init() {
        clipboard = true
        clipboardFromHost = false
        renderer = .auto
        pasteMode = .type
        controllerName = nil
        keyStore = .keyring
        rendezvousUrls = []
        relayUrls = []
        stunUrls = []
        transportPreference = .auto
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case controllerName, keyStore, rendezvousUrls, relayUrls, stunUrls, transportPreference, clipboard, clipboardFromHost, renderer, pasteMode
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        controllerName = try container.decodeIfPresent(String.self, forKey: .controllerName)
        if let controllerName, let problem = DeviceName.problem(with: controllerName) {
            throw DecodingError.dataCorruptedError(forKey: .controllerName, in: container, debugDescription: problem)
        }
        keyStore = try container.decodeChoice(KeyStoreChoice.self, forKey: .keyStore) ?? .keyring
        rendezvousUrls = try container.decodeReachURLs(forKey: .rendezvousUrls, scheme: .mqtt)
        relayUrls = try container.decodeReachURLs(forKey: .relayUrls, scheme: .turn)
        stunUrls = try container.decodeReachURLs(forKey: .stunUrls, scheme: .stun)
        transportPreference = try container.decodeTransportPreference(forKey: .transportPreference) ?? .auto
        clipboard = try container.decodeIfPresent(Bool.self, forKey: .clipboard) ?? true
        clipboardFromHost = try container.decodeIfPresent(Bool.self, forKey: .clipboardFromHost) ?? false
        renderer = try container.decodeChoice(RendererChoice.self, forKey: .renderer) ?? .auto
        pasteMode = try container.decodeChoice(PasteModeChoice.self, forKey: .pasteMode) ?? .type
    }
}

/// `controller.json`'s `renderer`: the best the terminal supports, or a fixed one.
public enum RendererChoice: String, Codable, Sendable, CaseIterable {
    case auto, kitty, sixel, symbols
}

/// `controller.json`'s `pasteMode`: typed, through the host's clipboard and Ctrl+V, or into the
/// host's clipboard only.
public enum PasteModeChoice: String, Codable, Sendable, CaseIterable {
    case type, paste, setClipboard
}

extension KeyedDecodingContainer {
    func decodeInRange(_ range: ClosedRange<Int>, forKey key: Key) throws -> Int? {
        guard let value = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }
}
