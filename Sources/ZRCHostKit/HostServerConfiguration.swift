public import Foundation
public import ZRCNetworking
public import ZRCProtocol

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
    public var timings: ConnectionTimings
    /// The local control socket for `zrc-host pair`, `controllers`, ….
    public var controlSocket: URL
    /// Most connections allowed to be in their handshake at once; more are refused at accept.
    public var maximumPendingHandshakes: Int
    /// A source of secret random bytes (invite IDs and secrets).
    public var randomSecret: @Sendable (Int) -> SecretBytes
    /// Wall-clock Unix seconds, for invite expiry (replaceable in tests).
    public var unixSeconds: @Sendable () -> UInt64
    /// The screen and input to share; nil for a host that only pairs and answers pings.
    public var sharing: ScreenSharing?
    /// What a controller gets while another one is in control.
    public var policy: SessionPolicy

    public init(listen: HostPort, hostName: String, advertisedAddresses: [String] = [], inviteLifetimeSeconds: Int = 600,
                handshakeTimeout: Duration = .seconds(5), timings: ConnectionTimings = ConnectionTimings(),
                controlSocket: URL, maximumPendingHandshakes: Int = 64, randomSecret: @escaping @Sendable (Int) -> SecretBytes,
                unixSeconds: @escaping @Sendable () -> UInt64 = { UInt64(max(0, Date().timeIntervalSince1970)) },
                sharing: ScreenSharing? = nil, policy: SessionPolicy = .viewOnly) {
        self.listen = listen
        self.hostName = hostName
        self.advertisedAddresses = advertisedAddresses
        self.inviteLifetimeSeconds = inviteLifetimeSeconds
        self.handshakeTimeout = handshakeTimeout
        self.timings = timings
        self.controlSocket = controlSocket
        self.maximumPendingHandshakes = maximumPendingHandshakes
        self.randomSecret = randomSecret
        self.unixSeconds = unixSeconds
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
