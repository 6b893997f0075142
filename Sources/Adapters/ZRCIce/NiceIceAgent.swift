internal import CReach
import Foundation
import Synchronization
import ZRCReach
import ZRCProtocol

/// One libnice agent: gathering, connectivity checks, then the PseudoTCP stream's socket.
/// Events come from the GLib thread through `EventBox` and are applied in order on this actor.
actor NiceIceAgent: IceAgent {
    private let handle: IceHandle
    private let box: Unmanaged<EventBox>
    private let servers: ResolvedServers
    private var gathered = false
    /// Said with an ICE failure: relays were configured but none allocated.
    private var relayProblem: String?
    /// Kinds of local candidate gathered so far ("host", "srflx", "relay").
    private var gatheredKinds: Set<String> = []
    /// The kinds worth waiting for: once they are in, the rest of gathering (a dead interface's
    /// STUN retransmissions, 1.4 s) is not waited for.
    private let wantedKinds: Set<String>
    private var established = false
    private var failure: String?
    private var closed = false
    private var offered: [IceCandidate] = []
    private var remote: [IceCandidate] = []
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    init(controlling: Bool, settings: IceSettings, servers: ResolvedServers) throws(ReachError) {
        let (events, continuation) = AsyncStream<IceEvent>.makeStream()
        let box = Unmanaged.passRetained(EventBox(continuation))
        var options = zrc_ice_options()
        options.controlling = controlling ? 1 : 0
        options.relay_only = settings.relayOnly ? 1 : 0
        options.window_bytes = UInt32(clamping: settings.window)
        options.relay_window_bytes = UInt32(clamping: settings.relayWindow)
        options.conversation = settings.conversation
        // C copies of every string, alive for the call (zrc_ice_new keeps its own copies).
        var strings: [UnsafeMutablePointer<CChar>] = []
        func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
            let pointer = strdup(text)!
            strings.append(pointer)
            return UnsafeMutablePointer(pointer)
        }
        defer { strings.forEach { free($0) } }
        if let stun = servers.stun {
            options.stun_host = UnsafePointer(copy(stun.address))
            options.stun_port = stun.url.port
        }
        options.relay_count = Int32(servers.relays.count)
        withUnsafeMutableBytes(of: &options.relays) { raw in
            let relays = raw.bindMemory(to: zrc_ice_relay.self)
            for (index, relay) in servers.relays.enumerated() {
                relays[index] = zrc_ice_relay(host: copy(relay.address), port: relay.url.port, username: copy(relay.username),
                                              password: copy(relay.password), over_tcp: relay.url.overTCP ? 1 : 0)
            }
        }
        var error = [CChar](repeating: 0, count: 256)
        guard let pointer = zrc_ice_new(&options, niceEventCallback, box.toOpaque(), &error, error.count) else {
            box.release()
            throw ReachError(.iceFailed, "cannot start ICE: \(String(cBuffer: error))")
        }
        handle = IceHandle(pointer: pointer)
        self.box = box
        var wanted: Set<String> = settings.relayOnly ? [] : ["host"]
        if !settings.relayOnly, servers.stun != nil || !servers.relays.isEmpty { wanted.insert("srflx") }
        if !servers.relays.isEmpty { wanted.insert("relay") }
        wantedKinds = wanted
        self.servers = servers
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.apply(event.code, detail: event.detail)
            }
        }
    }

    deinit {
        if !closed {
            zrc_ice_free(handle.pointer)
            box.release()
        }
    }

    private func apply(_ event: Int32, detail: String?) {
        switch Int(event) {
        case Int(ZRC_ICE_GATHERED): gathered = true
        case Int(ZRC_ICE_CANDIDATE): if let detail { gatheredKinds.insert(detail) }
        case Int(ZRC_ICE_ESTABLISHED): established = true
        case Int(ZRC_ICE_FAILED): failure = failure ?? detail ?? "ICE failed"
        case Int(ZRC_ICE_CLOSED): if !established { failure = failure ?? "the ICE stream closed before it opened" }
        default: break
        }
        let woken = waiters
        waiters = [:]
        woken.values.forEach { $0.resume() }
    }

    /// Suspends until the next event or `deadline`.
    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            await self?.wake(id)
        }
        await withCheckedContinuation { waiters[id] = $0 }
        timer.cancel()
    }

    private func wake(_ id: Int) { waiters.removeValue(forKey: id)?.resume() }

    func localDescription(timeout: Duration) async throws(ReachError) -> IceDescription {
        let deadline = ContinuousClock.now + timeout
        while !gathered, !wantedKinds.isSubset(of: gatheredKinds), failure == nil, !closed, ContinuousClock.now < deadline {
            await waitForChange(until: deadline)
        }
        if let failure { throw ReachError(.iceFailed, "ICE candidate gathering failed: \(failure)") }
        guard !closed else { throw ReachError(.iceFailed, "the ICE agent was closed") }
        var ufrag = [CChar](repeating: 0, count: 257)
        var password = [CChar](repeating: 0, count: 257)
        var candidates = [zrc_candidate](repeating: zrc_candidate(), count: IceDescription.maxCandidates)
        let count = zrc_ice_local(handle.pointer, &ufrag, ufrag.count, &password, password.count, &candidates, Int32(candidates.count))
        offered = candidates.prefix(Int(count)).map(IceCandidate.init(_:)).filter { $0.problem() == nil }
        if !servers.relays.isEmpty, !offered.contains(where: { $0.kind == .relayed }) {
            relayProblem = "the relay \(servers.relays.map(\.url.description).joined(separator: ", ")) gave no relayed candidate "
                + "(unreachable, or wrong credentials: check relayUrls)"
        }
        guard !offered.isEmpty else {
            throw ReachError(.iceFailed, servers.relays.isEmpty || !gathered
                ? "ICE gathered no candidates (no usable network interface?)"
                : "ICE gathered no relayed candidate: the relay \(servers.relays.map(\.url.description).joined(separator: ", ")) did not allocate (check relayUrls and its credentials)")
        }
        return IceDescription(usernameFragment: String(cBuffer: ufrag), password: String(cBuffer: password), candidates: offered)
    }

    func connect(to description: IceDescription, timeout: Duration) async throws(ReachError) -> IceStream {
        // Every C call below needs the agent alive: `close()` may have run before this call or
        // during any suspension, and then the handle is freed.
        guard !closed else { throw ReachError(.iceFailed, "the ICE agent was closed") }
        remote = description.candidates
        var error = [CChar](repeating: 0, count: 256)
        let candidates = description.candidates.map(zrc_candidate.init(_:))
        guard zrc_ice_set_remote(handle.pointer, description.usernameFragment, description.password, candidates, Int32(candidates.count),
                                 &error, error.count) == 0 else {
            throw ReachError(.iceFailed, String(cBuffer: error))
        }
        let deadline = ContinuousClock.now + timeout
        while !established, failure == nil, !closed, ContinuousClock.now < deadline { await waitForChange(until: deadline) }
        guard !closed else { throw ReachError(.iceFailed, "the ICE agent was closed") }
        guard established else {
            let why = failure ?? "no candidate pair connected within \(timeout)"
            throw ReachError(.iceFailed, "ICE found no working path (\(why)); tried \(Self.list(offered)) against the peer's \(Self.list(remote))"
                + (relayProblem.map { "; \($0)" } ?? ""))
        }
        let socket = zrc_ice_take_socket(handle.pointer)
        guard socket >= 0 else { throw ReachError(.iceFailed, "the ICE stream's socket was already taken") }
        return IceStream(socket: socket, path: selectedPath(), window: Int(zrc_ice_window(handle.pointer)), agent: self)
    }

    private func selectedPath() -> TransportPath {
        guard !closed else { return .iceDirect(local: .host, remote: .host, remoteEndpoint: "?") }
        var local = zrc_candidate()
        var remote = zrc_candidate()
        guard zrc_ice_selected(handle.pointer, &local, &remote) == 0 else { return .iceDirect(local: .host, remote: .host, remoteEndpoint: "?") }
        let localCandidate = IceCandidate(local)
        let remoteCandidate = IceCandidate(remote)
        if localCandidate.kind == .relayed {
            // Ours: name the relay as configured (one relay is the usual case; else the first).
            return .relay(server: servers.relays.first?.url.endpoint ?? localCandidate.endpoint)
        }
        if remoteCandidate.kind == .relayed {
            // The peer's relay: named as configured when it is one this side knows (the host's
            // invite lists its relays), else by its address alone (the port is the allocation's).
            let known = servers.relays.first { $0.address == remoteCandidate.address }
            return .relay(server: known?.url.endpoint ?? remoteCandidate.address)
        }
        return .iceDirect(local: localCandidate.kind, remote: remoteCandidate.kind, remoteEndpoint: remoteCandidate.endpoint)
    }

    func close() async {
        guard !closed else { return }
        closed = true
        // Waits until an open stream's close reached the peer: a process that exits right after
        // (zrc-ctl's one-shot commands) must not take its last records with it.
        let pointer = handle
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let context = Unmanaged.passRetained(CloseWaiter(done)).toOpaque()
            zrc_ice_close(pointer.pointer, closeDone, context)
        }
        box.takeUnretainedValue().finish()
        box.release()
        let woken = waiters
        waiters = [:]
        woken.values.forEach { $0.resume() }
    }

    private static func list(_ candidates: [IceCandidate]) -> String {
        candidates.isEmpty ? "no candidates" : candidates.map(\.description).joined(separator: ", ")
    }
}

/// Resumes `close()` from the GLib thread.
final class CloseWaiter: Sendable {
    let continuation: CheckedContinuation<Void, Never>
    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
}

private let closeDone: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
    guard let context else { return }
    Unmanaged<CloseWaiter>.fromOpaque(context).takeRetainedValue().continuation.resume()
}

/// The C handle. Safe to send: every zrc_ice_* function marshals onto the GLib thread and
/// waits, so no two threads touch the agent at once; the actor frees it exactly once.
struct IceHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// One event from the GLib thread, with its words (a failure's reason, a candidate's kind).
struct IceEvent: Sendable {
    let code: Int32
    let detail: String?
}

/// What the GLib thread's callback reaches: events go into a stream, applied in order.
final class EventBox: Sendable {
    private let continuation: AsyncStream<IceEvent>.Continuation

    init(_ continuation: AsyncStream<IceEvent>.Continuation) { self.continuation = continuation }

    func post(_ event: Int32, detail text: String?) { continuation.yield(IceEvent(code: event, detail: text)) }

    func finish() { continuation.finish() }
}

/// Runs on the GLib thread: must not block, and touches only the box.
private let niceEventCallback: zrc_ice_callback = { context, event, detail in
    guard let context else { return }
    let box = Unmanaged<EventBox>.fromOpaque(context).takeUnretainedValue()
    box.post(event, detail: detail.map { String(cString: $0) })
}

extension IceCandidate {
    init(_ candidate: zrc_candidate) {
        var copy = candidate
        let foundation = withUnsafeBytes(of: &copy.foundation) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let address = withUnsafeBytes(of: &copy.address) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        self.init(kind: Kind(rawValue: UInt8(clamping: candidate.type)) ?? .host, priority: candidate.priority, foundation: foundation,
                  address: address, port: candidate.port)
    }
}

extension zrc_candidate {
    init(_ candidate: IceCandidate) {
        self.init()
        type = Int32(candidate.kind.rawValue)
        priority = candidate.priority
        port = candidate.port
        withUnsafeMutableBytes(of: &foundation) { raw in
            let bytes = Array(candidate.foundation.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        withUnsafeMutableBytes(of: &address) { raw in
            let bytes = Array(candidate.address.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }
}
