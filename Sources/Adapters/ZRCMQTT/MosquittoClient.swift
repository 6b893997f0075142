internal import CMosquitto
import Foundation
import Synchronization
public import ZRCReach
public import ZRCProtocol


/// One libmosquitto client. libmosquitto's threaded interface makes subscribe, publish and
/// disconnect safe from any thread while its network thread runs the callbacks.
final class MosquittoClient: RendezvousBrokerClient, Sendable {
    let url: ReachURL
    let events: AsyncStream<BrokerEvent>
    let continuation: AsyncStream<BrokerEvent>.Continuation
    let handle: MosquittoHandle
    private let persistent: Bool
    let state = Mutex(State())
    /// Keeps the callbacks' context alive until the client is destroyed.
    private let selfReference: Mutex<Unmanaged<MosquittoClient>?> = Mutex(nil)

    struct State {
        var topics: Set<String> = []
        var connected = false
        var closed = false
        /// The first CONNACK (or the first failure) resumes `start`.
        var starting: CheckedContinuation<Void, any Error>?
        /// A failure that came before `start` began waiting (a connect that failed at once).
        var startFailure: String?
        /// Acknowledgements awaited, by message ID.
        var acks: [Int32: CheckedContinuation<Void, any Error>] = [:]
        /// Acknowledgements that came before their waiter was stored (bounded: re-subscriptions
        /// on reconnect are acknowledged too, and nobody waits for those).
        var earlyAcks: Set<Int32> = []
        /// The connecting thread has returned (close waits for it before destroying the handle).
        var connectThreadRunning = false
        var connectThreadDone: [CheckedContinuation<Void, Never>] = []
        /// libmosquitto's last error-level log line (OpenSSL's reason for a refused certificate).
        var lastLibraryError: String?
        /// Messages over the rendezvous limit that reached the client anyway (a broker that
        /// ignored the Maximum Packet Size, or a limit between the two sizes), dropped.
        var oversized = 0
    }

    /// Oversized messages dropped so far (see `State.oversized`).
    var oversizedMessages: Int { state.withLock { $0.oversized } }

    init(url: ReachURL, clientID: String, persistent: Bool) throws(ReachError) {
        if let libraryFailure { throw ReachError(.misconfigured, "cannot use MQTT: \(libraryFailure)") }
        do {
            _ = try url.requiringProtectedLogin()
        } catch {
            throw ReachError(.misconfigured, error.message)
        }
        guard let pointer = mosquitto_new(clientID, true, nil) else {
            throw ReachError(.brokerUnavailable, "cannot create an MQTT client for \(url)")
        }
        handle = MosquittoHandle(pointer: pointer)
        self.url = url
        self.persistent = persistent
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        let context = Unmanaged.passRetained(self)
        selfReference.withLock { $0 = context }
        mosquitto_user_data_set(pointer, context.toOpaque())
        mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_reconnect_delay_set(pointer, 1, 30, true)
        if url.tls {
            // The CA file alone when given, else the system's store; the host name is checked
            // (libmosquitto verifies it unless told it is insecure, which ZRC never does).
            let code: Int32
            if let caFile = url.caFile {
                code = mosquitto_tls_set(pointer, caFile, nil, nil, nil, nil)
            } else {
                code = mosquitto_int_option(pointer, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            }
            guard code == MOSQ_ERR_SUCCESS.rawValue,
                  mosquitto_tls_opts_set(pointer, 1, "tlsv1.2", nil) == MOSQ_ERR_SUCCESS.rawValue,
                  mosquitto_tls_insecure_set(pointer, false) == MOSQ_ERR_SUCCESS.rawValue else {
                mosquitto_destroy(pointer)
                let what = url.caFile.map { "the CA file \($0)" } ?? "the system's CA certificates"
                throw ReachError(.misconfigured, "cannot set up TLS for \(url) with \(what) (\(Self.describe(code)))")
            }
        }
        if case .password(let user, let password) = url.credentials { mosquitto_username_pw_set(pointer, user, password) }
        mosquitto_log_callback_set(pointer, onLog)
        mosquitto_connect_callback_set(pointer, onConnect)
        mosquitto_disconnect_callback_set(pointer, onDisconnect)
        mosquitto_message_callback_set(pointer, onMessage)
        mosquitto_subscribe_callback_set(pointer, onSubscribed)
        mosquitto_publish_callback_set(pointer, onAcknowledged)
    }

    /// Connects (TCP, TLS, MQTT CONNECT with the Maximum Packet Size) on a thread of its own,
    /// starts the network thread, and waits for the broker to accept the connection.
    func start(timeout: Duration) async throws(ReachError) {
        // libmosquitto has no asynchronous connect that takes MQTT 5 properties, so the blocking
        // one runs off Swift's pool; it keeps the properties for its own reconnects.
        let pointer = handle
        let host = url.host, port = Int32(url.port)
        state.withLock { $0.connectThreadRunning = true }
        Thread.detachNewThread { [self] in
            var properties: OpaquePointer?
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), UInt32(maximumPacketSize))
            let code = mosquitto_connect_bind_v5(pointer.pointer, host, port, 30, nil, properties)
            mosquitto_property_free_all(&properties)
            if code == MOSQ_ERR_SUCCESS.rawValue {
                mosquitto_loop_start(pointer.pointer)
            } else {
                failStart(connectFailure(code))
            }
            let waiting = state.withLock { state in
                state.connectThreadRunning = false
                defer { state.connectThreadDone = [] }
                return state.connectThreadDone
            }
            waiting.forEach { $0.resume() }
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.failStart("no answer within \(timeout)")
        }
        defer { timer.cancel() }
        do {
            try await withCheckedThrowingContinuation { continuation in
                enum Now { case wait, connected, failed(String) }
                let now = state.withLock { state -> Now in
                    if state.connected { return .connected }
                    if let failure = state.startFailure { return .failed(failure) }
                    state.starting = continuation
                    return .wait
                }
                switch now {
                case .wait: break
                case .connected: continuation.resume()
                case .failed(let why):
                    continuation.resume(throwing: ReachError(.brokerUnavailable, "cannot reach the rendezvous broker \(url): \(why)"))
                }
            }
        } catch let error as ReachError {
            throw error
        } catch {
            throw ReachError(.brokerUnavailable, "\(error)")
        }
    }

    func setSubscriptions(_ topics: Set<String>) async throws(ReachError) {
        let (added, removed, connected) = state.withLock { state in
            let result = (topics.subtracting(state.topics), state.topics.subtracting(topics), state.connected)
            state.topics = topics
            return result
        }
        // Unsubscribing needs no acknowledgement: a stale topic's messages fail to open anyway.
        for topic in removed where connected { mosquitto_unsubscribe(handle.pointer, nil, topic) }
        guard connected, !added.isEmpty else { return }
        try await acknowledged(timeout: .seconds(10), what: "subscribing") { mid in
            Self.subscribe(handle.pointer, Array(added), mid: mid)
        }
    }

    func publish(topic: String, payload: [UInt8], retain: Bool, timeout: Duration) async throws(ReachError) {
        try await acknowledged(timeout: timeout, what: "publishing") { mid in
            payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle.pointer, mid, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
            }
        }
    }

    func close() async {
        let (starting, acks) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
            guard !state.closed else { return (nil, []) }
            state.closed = true
            defer {
                state.starting = nil
                state.acks = [:]
            }
            return (state.starting, Array(state.acks.values))
        }
        let closedError = ReachError(.brokerUnavailable, "the connection to \(url) was closed")
        starting?.resume(throwing: closedError)
        acks.forEach { $0.resume(throwing: closedError) }
        guard let context = selfReference.withLock({ reference in defer { reference = nil }; return reference }) else { return }
        // A connect still under way finishes first (it cannot be interrupted).
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let running = state.withLock { state in
                if state.connectThreadRunning { state.connectThreadDone.append(done) }
                return state.connectThreadRunning
            }
            if !running { done.resume() }
        }
        mosquitto_disconnect(handle.pointer)
        // Joins the network thread: no callback runs after this. Not forced (libmosquitto's
        // documented way once disconnect was called): a cancelled thread may be stopped inside
        // its socket's close(), and the destroy below would then close that descriptor number
        // again — by then perhaps another part of the process's socket or its event loop's epoll.
        let pointer = handle
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                mosquitto_loop_stop(pointer.pointer, false)
                mosquitto_destroy(pointer.pointer)
                done.resume()
            }
        }
        continuation.finish()
        context.release()
    }

    // MARK: Acknowledgements

    private func acknowledged(timeout: Duration, what: String, send: (UnsafeMutablePointer<Int32>) -> Int32) async throws(ReachError) {
        var assigned: Int32 = 0
        let code = send(&assigned)
        let mid = assigned
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw ReachError(.brokerUnavailable, "\(what) at the rendezvous broker \(url) failed: \(Self.describe(code))")
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.failAck(mid, ReachError(.brokerUnavailable, "the rendezvous broker \(self?.url.description ?? "") did not acknowledge \(what) within \(timeout)"))
        }
        defer { timer.cancel() }
        do {
            try await withCheckedThrowingContinuation { continuation in
                // The acknowledgement may already have come (a fast broker): it left no waiter
                // then, and `acked` records it.
                enum Now { case wait, acknowledged, closed }
                let now = state.withLock { state -> Now in
                    if state.closed { return .closed }
                    if state.earlyAcks.remove(mid) != nil { return .acknowledged }
                    state.acks[mid] = continuation
                    return .wait
                }
                switch now {
                case .wait: break
                case .acknowledged: continuation.resume()
                case .closed: continuation.resume(throwing: ReachError(.brokerUnavailable, "the connection to \(url) was closed"))
                }
            }
        } catch let error as ReachError {
            throw error
        } catch {
            throw ReachError(.brokerUnavailable, "\(error)")
        }
    }

    private func failAck(_ mid: Int32, _ error: ReachError) {
        state.withLock { $0.acks.removeValue(forKey: mid) }?.resume(throwing: error)
    }

    func failStart(_ why: String) {
        state.withLock { state in
            defer { state.starting = nil }
            if state.starting == nil, !state.connected, state.startFailure == nil { state.startFailure = why }
            return state.starting
        }?.resume(throwing: ReachError(.brokerUnavailable, "cannot reach the rendezvous broker \(url): \(why)"))
    }
}
