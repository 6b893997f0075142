import Foundation
import Synchronization
import ZRCNetworking
public import ZRCProtocol
public import ZRCReach
import ZRCTestSupport

/// An MQTT broker in memory: what is published reaches every client subscribed to the topic,
/// and everything published is kept for the tests to look at (or publish again).
public final class InMemoryBroker: RendezvousBrokerMaker, Sendable {
    private let state = Mutex<(clients: [InMemoryBrokerClient], published: [BrokerMessage], down: Bool)>(([], [], false))
    /// Retained messages by topic: delivered to each new subscription that matches.
    private let retained = Mutex<[String: BrokerMessage]>([:])
    /// A man in the middle: sees every publication and says what the broker passes on instead.
    private let interceptor = Mutex<(@Sendable (BrokerMessage) -> BrokerMessage)?>(nil)

    /// From now on, every publication passes through `rewrite` first (an attacker at the broker).
    public func intercept(_ rewrite: @escaping @Sendable (BrokerMessage) -> BrokerMessage) {
        interceptor.withLock { $0 = rewrite }
    }
    /// Every publication, connection and change of subscriptions: what `waitUntil` looks again at.
    private let changes = ChangeSignal()

    public init() {}

    public var published: [BrokerMessage] { state.withLock { $0.published } }

    /// Whether a connected client subscribes to `topic`.
    public func isSubscribed(to topic: String) -> Bool {
        state.withLock { $0.clients }.contains { $0.subscribes(to: topic) }
    }

    /// Whether `condition` held of the broker within `timeout`, looked at again after every
    /// publication, connection and change of subscriptions.
    public func waitUntil(within timeout: Duration, _ condition: (InMemoryBroker) -> Bool) async -> Bool {
        await changes.wait(within: timeout) { condition(self) }
    }

    func subscriptionsChanged() { changes.notify() }

    /// The retained messages `filters` match.
    public func retainedMessages(matching filters: Set<String>) -> [BrokerMessage] {
        retained.withLock { Array($0.values) }.filter { message in filters.contains { mqttFilter($0, matches: message.topic) } }
    }

    public func setDown(_ down: Bool) { state.withLock { $0.down = down } }

    public func connect(to url: ReachURL, clientID: String, persistent: Bool, timeout: Duration) async throws(ReachError) -> any RendezvousBrokerClient {
        let client = InMemoryBrokerClient(url: url, broker: self)
        let refused = state.withLock { state -> Bool in
            if state.down { return true }
            state.clients.append(client)
            return false
        }
        if refused { throw ReachError(.brokerUnavailable, "cannot reach the rendezvous broker \(url): connection refused") }
        changes.notify()
        return client
    }

    public func publish(_ message: BrokerMessage, retain: Bool = false) {
        let message = interceptor.withLock { $0 }.map { $0(message) } ?? message
        if retain { retained.withLock { $0[message.topic] = message.payload.isEmpty ? nil : message } }
        let clients = state.withLock { state in
            state.published.append(message)
            return state.clients
        }
        for client in clients { client.deliver(message) }
        changes.notify()
    }

    public func remove(_ client: InMemoryBrokerClient) {
        state.withLock { $0.clients.removeAll { $0 === client } }
        changes.notify()
    }
}

public final class InMemoryBrokerClient: RendezvousBrokerClient, Sendable {
    public let url: ReachURL
    public let events: AsyncStream<BrokerEvent>
    private let sink: AsyncStream<BrokerEvent>.Continuation
    private let topics = Mutex<Set<String>>([])
    private let broker: InMemoryBroker

    public init(url: ReachURL, broker: InMemoryBroker) {
        self.url = url
        self.broker = broker
        (events, sink) = AsyncStream.makeStream()
        sink.yield(.connected)
    }

    public func deliver(_ message: BrokerMessage) {
        if subscribes(to: message.topic) { sink.yield(.message(message)) }
    }

    public func setSubscriptions(_ topics: Set<String>) async throws(ReachError) {
        let added = self.topics.withLock { current in
            defer { current = topics }
            return topics.subtracting(current)
        }
        for message in broker.retainedMessages(matching: added) { sink.yield(.message(message)) }
        broker.subscriptionsChanged()
    }

    public func subscribes(to topic: String) -> Bool { topics.withLock { $0.contains { mqttFilter($0, matches: topic) } } }

    public func publish(topic: String, payload: [UInt8], retain: Bool, timeout: Duration) async throws(ReachError) {
        broker.publish(BrokerMessage(topic: topic, payload: payload), retain: retain)
    }

    public func close() async {
        broker.remove(self)
        sink.finish()
    }
}

/// ICE in memory: two agents whose descriptions name each other get the two ends of a socket
/// pair, as the real adapter hands out its stream.
public final class SocketPairIce: IceAgentMaker, Sendable {
    private let waiting = Mutex<[String: CheckedContinuation<Int32?, Never>]>([:])
    private let made = Atomic<Int>(0)
    private let settingsSeen = Mutex<[(controlling: Bool, settings: IceSettings)]>([])

    public init() {}

    /// Agents made so far (each offer the host answers makes one).
    public var agentsMade: Int { made.load(ordering: .relaxed) }

    /// The settings each agent was made with, in order.
    public var agentSettings: [(controlling: Bool, settings: IceSettings)] { settingsSeen.withLock { $0 } }

    public func makeAgent(controlling: Bool, settings: IceSettings) async throws(ReachError) -> any IceAgent {
        made.add(1, ordering: .relaxed)
        settingsSeen.withLock { $0.append((controlling, settings)) }
        return SocketPairAgent(switchboard: self, controlling: controlling, ufrag: String(UUID().uuidString.prefix(8)).filter(\.isLetter).padding(toLength: 8, withPad: "a", startingAt: 0))
    }

    private let connects = Mutex<[(controlling: Bool, remote: IceDescription)]>([])

    /// The peer descriptions agents were asked to connect to, in order.
    public var connectsSeen: [(controlling: Bool, remote: IceDescription)] { connects.withLock { $0 } }

    public func noteConnect(controlling: Bool, remote: IceDescription) { connects.withLock { $0.append((controlling, remote)) } }

    /// The first of a pair waits (up to `timeout`); the second makes the socket pair.
    public func meet(_ local: String, _ remote: String, timeout: Duration) async -> Int32? {
        let key = [local, remote].sorted().joined(separator: "/")
        return await withCheckedContinuation { continuation in
            let partner = waiting.withLock { waiting in waiting.removeValue(forKey: key) ?? { waiting[key] = continuation; return nil }() }
            guard let partner else {
                Task {
                    try? await Task.sleep(for: timeout)
                    self.waiting.withLock { $0.removeValue(forKey: key) }?.resume(returning: nil)
                }
                return
            }
            var ends: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
                partner.resume(returning: nil)
                continuation.resume(returning: nil)
                return
            }
            partner.resume(returning: ends[0])
            continuation.resume(returning: ends[1])
        }
    }
}

public struct SocketPairAgent: IceAgent {
    public let switchboard: SocketPairIce
    public let controlling: Bool
    public let ufrag: String

    public init(switchboard: SocketPairIce, controlling: Bool, ufrag: String) {
        self.switchboard = switchboard
        self.controlling = controlling
        self.ufrag = ufrag
    }

    public func localDescription(timeout: Duration) async throws(ReachError) -> IceDescription {
        IceDescription(usernameFragment: ufrag, password: String(repeating: "p", count: 22),
                       candidates: [IceCandidate(kind: .host, priority: 1, foundation: "1", address: "10.0.0.1", port: 5000)])
    }

    public func connect(to remote: IceDescription, timeout: Duration) async throws(ReachError) -> IceStream {
        switchboard.noteConnect(controlling: controlling, remote: remote)
        guard let socket = await switchboard.meet(ufrag, remote.usernameFragment, timeout: timeout) else {
            throw ReachError(.iceFailed, "ICE found no working path (no peer)")
        }
        return IceStream(socket: socket, path: .iceDirect(local: .host, remote: .host, remoteEndpoint: "10.0.0.1:5000"), window: 65536, agent: self)
    }

    public func close() async {}
}
