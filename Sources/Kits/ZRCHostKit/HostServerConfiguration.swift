public import Foundation
public import ZRCNetworking
public import ZRCProtocol
public import ZRCReach

/// Everything `HostServer` needs that the executable decides.
public struct HostServerConfiguration: Sendable {
    /// Address and port to listen on; port 0 picks a free one.
    public var listen: HostPort
    /// Name announced to controllers.
    public var hostName: String
    /// Addresses put into invites when the request names none (`host` or `host:port`; a missing
    /// port means the bound one); empty derives them from the listening address (every
    /// non-loopback interface address when listening on 0.0.0.0 or ::).
    public var advertisedAddresses: [String]
    public var inviteLifetimeSeconds: Int
    public var handshakeTimeout: Duration
    /// Once a record header has arrived (the connection takes a handshake slot), the rest of
    /// message 1 must follow within this: a controller sends the record in one write, so only a
    /// peer holding a slot on purpose takes longer.
    public var messageOneTimeout: Duration = .seconds(1)
    public var timings: ConnectionTimings
    /// The local control socket for `zrc-host pair`, `controllers`, ….
    public var controlSocket: URL
    /// Connection, handshake and per-controller session limits (see `AdmissionLedger`).
    public var admission: AdmissionLimits
    /// How far a session handshake's timestamp may be from this host's clock, either way.
    public var maximumClockSkew: Duration
    /// A source of secret random bytes (invite IDs and secrets).
    public var randomSecret: @Sendable (Int) -> SecretBytes
    /// Wall-clock Unix microseconds, for invite expiry and handshake freshness (replaceable in tests).
    public var unixMicros: @Sendable () -> UInt64
    public var unixSeconds: UInt64 { unixMicros() / 1_000_000 }
    /// The screen and input to share; nil for a host that only pairs and answers pings.
    public var sharing: ScreenSharing?
    /// What a controller gets while another one is in control.
    public var policy: SessionPolicy
    /// The clipboard to share; nil: sessions get none (`--no-clipboard`, or no display).
    public var clipboard: ClipboardSharing?
    /// The rendezvous and ICE settings; nil: reachable on the TCP listener alone.
    public var reach: HostReach?
    /// Publishes the host on the LAN (mDNS); nil: not published.
    public var lanDiscovery: (any LanDiscovery)?
    /// The group pairing by code runs CPace on; nil: no pairing by code.
    public var cpace: (any CPaceGroup)?
    /// Shows the live sessions on the shared screen and ends them on the person's key; nil: none.
    public var indicator: (any SessionIndicator)?
    /// How long a new session waits for the person at the host to accept it in the indicator
    /// (nil: sessions need no approval). Needs `indicator`: nobody could answer otherwise.
    public var approvalTimeout: Duration?
    /// The files sessions in control may list, upload and download; nil: none (`--no-file-transfer`).
    public var files: FileSharing?

    public init(listen: HostPort, hostName: String, advertisedAddresses: [String] = [], inviteLifetimeSeconds: Int = 600,
                handshakeTimeout: Duration = .seconds(5), timings: ConnectionTimings = ConnectionTimings(),
                controlSocket: URL, admission: AdmissionLimits = AdmissionLimits(), maximumClockSkew: Duration = .seconds(120),
                randomSecret: @escaping @Sendable (Int) -> SecretBytes,
                unixMicros: @escaping @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000)) },
                sharing: ScreenSharing? = nil, clipboard: ClipboardSharing? = nil, policy: SessionPolicy = .viewOnly,
                reach: HostReach? = nil, lanDiscovery: (any LanDiscovery)? = nil) {
        self.clipboard = clipboard
        self.reach = reach
        self.lanDiscovery = lanDiscovery
        self.listen = listen
        self.hostName = hostName
        self.advertisedAddresses = advertisedAddresses
        self.inviteLifetimeSeconds = inviteLifetimeSeconds
        self.handshakeTimeout = handshakeTimeout
        self.timings = timings
        self.controlSocket = controlSocket
        self.admission = admission
        self.maximumClockSkew = maximumClockSkew
        self.randomSecret = randomSecret
        self.unixMicros = unixMicros
        self.sharing = sharing
        self.policy = policy
    }
}

/// One controlling session at a time; what further controllers get meanwhile.
public enum SessionPolicy: String, Sendable, CaseIterable, Codable {
    /// They may watch, but their input is refused.
    case viewOnly = "view-only"
    /// Their handshake is refused until the controlling session ends.
    case refuse
}
