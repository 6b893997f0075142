public import ZRCNetworking
public import ZRCProtocol

/// Something that happened on a session, in order.
public enum ControllerEvent: Sendable {
    case message(ZRCMessage)
    case ended(ConnectionEnd)
}

/// An established, authenticated connection to a host, seen from the controller.
public actor ControllerSession {
    public nonisolated let hostName: String
    public nonisolated let sessionID: UInt64
    public nonisolated let granted: SessionFlags
    /// Every message the host sends (except keepalive traffic) and finally the end.
    public nonisolated let events: AsyncStream<ControllerEvent>
    private let eventSink: AsyncStream<ControllerEvent>.Continuation
    private var connection: SecureConnection?
    private var pingWaiters: [UInt64: CheckedContinuation<UInt64, any Error>] = [:]
    /// Ping IDs of explicit pings live in the upper half so they never meet keepalive IDs.
    private var nextPingID: UInt64 = 1 << 63
    public private(set) var end: ConnectionEnd?
    private var endWaiters: [CheckedContinuation<ConnectionEnd, Never>] = []

    init(response: HandshakeResponsePayload) {
        hostName = TerminalSafeText.sanitized(response.hostName)
        sessionID = response.sessionID
        granted = response.granted
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    func attach(_ connection: SecureConnection) { self.connection = connection }

    func deliver(_ message: ZRCMessage) {
        if case .pong(let id, _, _) = message, let waiter = pingWaiters.removeValue(forKey: id) {
            waiter.resume(returning: WireClock.monotonicMicros())
            return
        }
        eventSink.yield(.message(message))
    }

    func finished(_ end: ConnectionEnd) {
        guard self.end == nil else { return }
        self.end = end
        connection = nil
        for waiter in pingWaiters.values {
            waiter.resume(throwing: ControllerError(.connectionLost, "the session ended before the host answered: \(end)"))
        }
        pingWaiters = [:]
        eventSink.yield(.ended(end))
        eventSink.finish()
        endWaiters.forEach { $0.resume(returning: end) }
        endWaiters = []
    }

    public func send(_ message: ZRCMessage) async throws(ControllerError) {
        guard let connection else { throw Self.ended(end) }
        do {
            try await connection.send(message)
        } catch {
            throw Self.ended(await connection.endReason)
        }
    }

    /// Says why the session is gone, e.g. "the session ended: closed by the peer (revoked: …)".
    private static func ended(_ end: ConnectionEnd?) -> ControllerError {
        guard let end else { return ControllerError(.closed, "the session is closed") }
        if case .remote = end { return ControllerError(.closedByHost, "the session ended: \(end)") }
        return ControllerError(.connectionLost, "the session ended: \(end)")
    }

    /// Sends a ping and returns the round-trip time measured on this machine's monotonic clock.
    public func ping(timeout: Duration = .seconds(5)) async throws(ControllerError) -> Duration {
        let id = nextPingID
        nextPingID &+= 1
        guard let connection else { throw Self.ended(end) }
        let sentAt = WireClock.monotonicMicros()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expirePing(id, after: timeout)
        }
        defer { timer.cancel() }
        do {
            // The waiter is registered before the ping leaves, so neither the pong nor the end of
            // the session can slip past it.
            let receivedAt = try await withCheckedThrowingContinuation { continuation in
                pingWaiters[id] = continuation
                Task { await self.sendPing(id: id, sentAt: sentAt, over: connection) }
            }
            return .microseconds(Int64(receivedAt &- sentAt))
        } catch let error as ControllerError {
            throw error
        } catch {
            throw ControllerError(.connectionLost, "\(error)")
        }
    }

    private func sendPing(id: UInt64, sentAt: UInt64, over connection: SecureConnection) async {
        do {
            try await connection.send(.ping(id: id, sentAtMicros: sentAt))
        } catch {
            pingWaiters.removeValue(forKey: id)?.resume(throwing: Self.ended(await connection.endReason))
        }
    }

    private func expirePing(_ id: UInt64, after timeout: Duration) {
        pingWaiters.removeValue(forKey: id)?.resume(
            throwing: ControllerError(.connectionLost, "the host did not answer a ping within \(timeout)"))
    }

    /// Ends the session with `close(normal)`.
    public func close(text: String = "closed by the controller") async {
        await connection?.close(reason: .normal, text: text)
    }

    public func waitUntilEnded() async -> ConnectionEnd {
        if let end { return end }
        return await withCheckedContinuation { endWaiters.append($0) }
    }
}
