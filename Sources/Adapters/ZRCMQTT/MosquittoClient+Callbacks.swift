internal import CMosquitto
import Foundation
import ZRCReach
import ZRCProtocol
import ZRCSystem
import Synchronization

/// What libmosquitto's network thread calls: connection state, messages, acknowledgements, and
/// its log (where a refused TLS certificate shows).
extension MosquittoClient {
    /// What a failed connect says, naming TLS's reason when there is one.
    func connectFailure(_ code: Int32) -> String {
        if code == MOSQ_ERR_TLS.rawValue {
            let detail = state.withLock { $0.lastLibraryError } ?? "no detail"
            return "TLS failed: the broker's certificate was not accepted (\(url.caFile.map { "not signed by \($0)" } ?? "not signed by a CA this system trusts") "
                + "or not issued for \(url.host)): \(detail)"
        }
        return Self.describe(code)
    }

    func logged(level: Int32, _ text: String) {
        guard level == MOSQ_LOG_ERR else { return }
        state.withLock { $0.lastLibraryError = String(text.prefix(300)) }
        // The TLS handshake runs in the network thread: a refused certificate shows only here
        // (libmosquitto then retries quietly), so a start waiting for it fails now.
        if text.contains("OpenSSL Error") { failStart(connectFailure(MOSQ_ERR_TLS.rawValue)) }
    }

    func droppedOversized() { state.withLock { $0.oversized += 1 } }

    func connected(code: Int32) {
        guard code == 0 else {
            let why = String(cString: mosquitto_reason_string(code))
            failStart("it refused the connection (\(why))")
            continuation.yield(.disconnected(reason: "refused: \(why)"))
            return
        }
        let (starting, topics) = state.withLock { state in
            state.connected = true
            defer { state.starting = nil }
            return (state.starting, state.topics)
        }
        // The broker forgets subscriptions with the session: renew them on every connect.
        if !topics.isEmpty { _ = Self.subscribe(handle.pointer, Array(topics), mid: nil) }
        continuation.yield(.connected)
        starting?.resume()
    }

    func disconnected(code: Int32) {
        let wasConnected = state.withLock { state in defer { state.connected = false }; return state.connected }
        let reason = code == 0 ? "closed" : String(cString: mosquitto_strerror(code))
        failStart("the connection failed (\(reason))")
        if wasConnected { continuation.yield(.disconnected(reason: reason)) }
    }

    func received(topic: String, payload: [UInt8]) {
        continuation.yield(.message(BrokerMessage(topic: topic, payload: payload)))
    }

    func acked(_ mid: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if let waiter = state.acks.removeValue(forKey: mid) { return waiter }
            if state.earlyAcks.count >= 64 { state.earlyAcks.removeAll() }
            state.earlyAcks.insert(mid)
            return nil
        }
        waiter?.resume()
    }

    static func subscribe(_ pointer: OpaquePointer, _ topics: [String], mid: UnsafeMutablePointer<Int32>?) -> Int32 {
        var copies = topics.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafeMutablePointer<CChar>?.self, capacity: buffer.count) { list in
                mosquitto_subscribe_multiple(pointer, mid, Int32(buffer.count), list, 1, 0, nil)
            }
        }
    }

    static func describe(_ code: Int32) -> String {
        code == MOSQ_ERR_ERRNO.rawValue ? SystemCall.describe(errno) : String(cString: mosquitto_strerror(code))
    }
}

/// The libmosquitto handle: safe to share because libmosquitto's threaded interface locks
/// internally, and it is destroyed exactly once, after its thread has been joined.
struct MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

private func client(_ context: UnsafeMutableRawPointer?) -> MosquittoClient? {
    context.map { Unmanaged<MosquittoClient>.fromOpaque($0).takeUnretainedValue() }
}

let onConnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    client(context)?.connected(code: code)
}

let onDisconnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    client(context)?.disconnected(code: code)
}

let onAcknowledged: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, mid in
    client(context)?.acked(mid)
}

let onSubscribed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
    _, context, mid, _, _ in client(context)?.acked(mid)
}

let onMessage: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
    _, context, message in
    guard let client = client(context), let message = message?.pointee, let topic = message.topic else { return }
    // Sizes are checked before the copy: a broker (or anyone publishing to the topic) could send
    // megabytes; a rendezvous message is never over 4 KiB.
    guard message.payloadlen >= 0, Int(message.payloadlen) <= RendezvousSeal.maxSealedBytes else {
        client.droppedOversized()
        return
    }
    let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
    client.received(topic: String(cString: topic), payload: payload)
}

let onLog: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, context, level, text in
    guard let text else { return }
    client(context)?.logged(level: level, String(cString: text))
}
