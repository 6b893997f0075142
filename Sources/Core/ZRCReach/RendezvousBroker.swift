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
    /// Publishes at-least-once and waits for the broker's acknowledgement. A retained message
    /// is kept by the broker for later subscribers (an empty retained payload removes it).
    func publish(topic: String, payload: [UInt8], retain: Bool, timeout: Duration) async throws(ReachError)
    func close() async
}

extension RendezvousBrokerClient {
    public func publish(topic: String, payload: [UInt8], timeout: Duration) async throws(ReachError) {
        try await publish(topic: topic, payload: payload, retain: false, timeout: timeout)
    }
}

/// Whether an MQTT topic filter (`+` one level, `#` the rest) matches `topic`.
public func mqttFilter(_ filter: String, matches topic: String) -> Bool {
    let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
    let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in filterLevels.enumerated() {
        if level == "#" { return true }
        guard index < topicLevels.count else { return false }
        if level != "+" && level != topicLevels[index] { return false }
    }
    return filterLevels.count == topicLevels.count
}
