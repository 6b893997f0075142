public import ZRCProtocol

/// A message the broker delivered.
public struct BrokerMessage: Sendable {
    public let topic: String
    public let payload: [UInt8]

    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}

public enum BrokerEvent: Sendable {
    case connected
    case disconnected(reason: String)
    case message(BrokerMessage)
}

/// Connects to a rendezvous broker (the seam the MQTT adapter fills).
public protocol RendezvousBrokerMaker: Sendable {
    /// Connects and waits for the broker's acceptance (at most `timeout`). With `persistent`,
    /// the client keeps reconnecting with backoff after a loss and re-subscribes its topics.
    func connect(to url: ReachURL, clientID: String, persistent: Bool, timeout: Duration) async throws(ReachError)
        -> any RendezvousBrokerClient
}

public protocol RendezvousBrokerClient: Sendable {
    /// The broker, for messages.
    var url: ReachURL { get }
    /// Connection changes and delivered messages, in order. Ends once closed.
    var events: AsyncStream<BrokerEvent> { get }
    /// Replaces the subscribed topics (kept across reconnects) and waits for the broker's
    /// acknowledgement when connected.
    func setSubscriptions(_ topics: Set<String>) async throws(ReachError)
    /// Publishes at-least-once and waits for the broker's acknowledgement.
    func publish(topic: String, payload: [UInt8], timeout: Duration) async throws(ReachError)
    func close() async
}
