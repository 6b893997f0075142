public import ZRCProtocol

/// The servers and limits one side's ICE agent uses.
public struct IceSettings: Sendable, Equatable {
    public var stunServers: [ReachURL]
    public var relays: [ReachURL]
    /// Gather only relayed candidates (`transportPreference: relay`).
    public var relayOnly: Bool
    /// PseudoTCP window on a direct path: enough for 40 Mbit/s at 200 ms.
    public var window: Int
    /// On a relayed path: coturn's relay socket keeps a fixed 64 KiB buffer, and a window
    /// beyond it only makes the relay drop a burst's tail.
    public var relayWindow: Int
    /// PseudoTCP's conversation number, the same on both sides and known to nobody else
    /// (`RendezvousMessage.Offer.conversation`); 0 only where nothing secret is at hand.
    public var conversation: UInt32 = 0

    public static let defaultWindow = 1 << 20
    public static let defaultRelayWindow = 64 << 10

    public init(stunServers: [ReachURL] = [], relays: [ReachURL] = [], relayOnly: Bool = false,
                window: Int = defaultWindow, relayWindow: Int = defaultRelayWindow) {
        self.stunServers = stunServers
        self.relays = relays
        self.relayOnly = relayOnly
        self.window = window
        self.relayWindow = relayWindow
    }
}

/// A connected ICE stream: a stream socket carrying the bytes, and the path it runs over.
public struct IceStream: Sendable {
    /// A connected, non-blocking stream socket; the receiver owns it and closes it.
    public let socket: Int32
    public let path: TransportPath
    /// The PseudoTCP window chosen for the path.
    public let window: Int
    /// Keeps the agent alive while the stream is used; closing it ends the path.
    public let agent: any IceAgent

    public init(socket: Int32, path: TransportPath, window: Int, agent: any IceAgent) {
        self.socket = socket
        self.path = path
        self.window = window
        self.agent = agent
    }
}

/// Makes ICE agents (the seam the ICE adapter fills; tests can fill it in memory).
public protocol IceAgentMaker: Sendable {
    func makeAgent(controlling: Bool, settings: IceSettings) async throws(ReachError) -> any IceAgent
}

/// One side of one ICE negotiation.
public protocol IceAgent: Sendable {
    /// This side's credentials and candidates, once gathering ends (or `timeout` passes: then
    /// what was gathered so far).
    func localDescription(timeout: Duration) async throws(ReachError) -> IceDescription
    /// Runs the connectivity checks against the peer's description and opens the stream.
    func connect(to remote: IceDescription, timeout: Duration) async throws(ReachError) -> IceStream
    /// Ends the negotiation or the stream, releasing relay allocations.
    func close() async
}
