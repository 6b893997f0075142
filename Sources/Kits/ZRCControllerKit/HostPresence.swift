public import Foundation
public import ZRCProtocol
public import ZRCStorage

/// Whether a paired host answers now: ONLINE with the path a session takes and its round trip,
/// or OFFLINE with the reason.
public struct HostPresence: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case online(path: TransportPath, roundTrip: Duration)
        case offline(reason: String)
    }

    public let name: String
    public let state: State

    public init(name: String, state: State) {
        self.name = name
        self.state = state
    }
}

extension ZRCController {
    /// Probes `hosts` (default: every paired host) in parallel — a view-only session each (every
    /// way of reaching it: addresses, LAN, rendezvous), one ping, closed at once — and answers
    /// within `deadline` whatever the slowest does: a host not online by then is offline ("no
    /// answer within …"). The order is that of `hosts`.
    public func presence(of hosts: [KnownHost]? = nil, within deadline: Duration = .seconds(2)) async throws(ControllerError) -> [HostPresence] {
        let targets: [KnownHost]
        if let hosts {
            targets = hosts
        } else {
            do {
                targets = try await knownHosts.all()
            } catch {
                throw ControllerError(.storage, error.description)
            }
        }
        guard !targets.isEmpty else { return [] }
        let (reports, sink) = AsyncStream<HostPresence>.makeStream()
        // Unstructured on purpose: the answer comes at the deadline even when a probe's connect
        // is still running; cancelled probes end on their own timeouts.
        let probes = targets.map { host in
            Task {
                sink.yield(HostPresence(name: host.name, state: await probe(host.name)))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: deadline)
            sink.finish()
        }
        var found: [String: HostPresence.State] = [:]
        for await report in reports {
            found[report.name] = report.state
            if found.count == targets.count { break }
        }
        timer.cancel()
        probes.forEach { $0.cancel() }
        sink.finish()
        return targets.map { host in
            HostPresence(name: host.name, state: found[host.name] ?? .offline(reason: "no answer within \(Self.describe(deadline))"))
        }
    }

    private func probe(_ name: String) async -> HostPresence.State {
        do {
            let session = try await connect(to: name, viewOnly: true)
            defer { Task { await session.close(text: "presence probe") } }
            let roundTrip = try await session.ping(timeout: .seconds(5))
            return .online(path: session.path, roundTrip: roundTrip)
        } catch {
            return .offline(reason: error.message)
        }
    }

    static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
