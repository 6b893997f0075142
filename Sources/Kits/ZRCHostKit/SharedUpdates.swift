import Synchronization
import ZRCFrames
import ZRCProtocol

/// Frame updates shared between sessions: when several viewers hold the same picture and are
/// offered the same capture with the same settings, one session computes the update (compare,
/// moves, encoding) and the others send it as it is — ten viewers of a scrolling page cost about
/// what one does, where each used to verify the move over the whole screen and keep its own copy
/// of it (the picture's pixels are now shared between them, copy-on-write).
///
/// A state is named by `FrameStream.settledIdentity` (sessions that reached the same picture
/// separately find each other) or, while unsettled, by a name the computing session makes up and
/// its followers take over. An update with lossless chunks means the same only to controllers whose
/// lossless streams are where its chunks continue them: sessions whose controllers announced
/// `Capabilities.sharedLosslessStream` send chunks of streams shared between them
/// (`SharedLosslessStream`); one whose stream is elsewhere sends an update's payloads compressed
/// again in its own, and a session computing an update for others in its state whose streams are
/// spread too far restarts the stream for all of them; to older controllers, lossless rects
/// go as frames of their own while two or more sessions watch (`Capabilities.losslessFrames`).
/// Bounded: a few updates, newest kept; nothing while only one session watches.
public final class SharedUpdates: Sendable {
    /// The settings that shape an update beside the state and the capture. Not the motion
    /// quality nor the size limit sized to the path: each session's follow its own
    /// acknowledgements, so sessions in step would rarely agree on them. One taking an update
    /// takes the quality it was made at, and takes it only if it is within its own size limit
    /// (`Step.pixels`).
    struct Setting: Hashable {
        var encodings: UInt32
        var refineQuality: Int
        var refineDelayMicros: UInt64
        var losslessRefinementLimit: Int
        var maximumRefinementPixels: Int
        var focusX: Int?
        var focusY: Int?
        var tileSize: Int

        init(_ configuration: FrameStream.Configuration) {
            encodings = configuration.encodings.rawValue
            refineQuality = configuration.refineQuality
            refineDelayMicros = configuration.refineDelayMicros
            losslessRefinementLimit = configuration.losslessRefinementLimit
            maximumRefinementPixels = configuration.maximumRefinementPixels
            focusX = configuration.focus?.x
            focusY = configuration.focus?.y
            tileSize = configuration.tileSize
        }
    }

    struct Key: Hashable {
        /// The state the update starts from.
        var state: Int
        /// The capture it was made from.
        var picture: SharedEncodings.Picture
        var setting: Setting
    }

    /// An update and the state it leaves, named.
    struct Step: Sendable {
        var update: FrameUpdate
        var state: FrameStream.PictureState
        var name: Int
        /// The pixels it draws (copies aside), for a session's size limit.
        var pixels: Int
        /// Its lossless chunks, when made through shared streams, and their payloads (nil when
        /// they are too large to keep: then only sessions at the chunks' position can take it).
        var chunks: ChunkRun?
        var payloads: [[UInt8]]?

        /// Payload bytes an update keeps at most, for sessions whose streams are elsewhere.
        static let maximumPayloadBytes = 1 << 20

        init(update: FrameUpdate, state: FrameStream.PictureState, name: Int, chunks: ChunkRun? = nil, payloads: [[UInt8]] = []) {
            self.update = update
            self.state = state
            self.name = name
            self.chunks = chunks
            pixels = update.drawnPixels
            if chunks != nil, payloads.reduce(0, { $0 + $1.count }) <= Self.maximumPayloadBytes { self.payloads = payloads }
        }

        /// Whether a session whose controller's shared stream is at `streamPosition` (nil: it
        /// takes no shared stream) can send it: it holds no chunks, or its chunks start a new
        /// stream or continue the stream from there (the same bytes), or its payloads are kept
        /// (chunks of the session's own stream: `sendsOwnChunks`).
        func canBeTaken(at streamPosition: UInt64?) -> Bool {
            guard let chunks else { return FrameStream.isShareable(update) }
            guard let streamPosition else { return false }
            return chunks.from == nil || chunks.from == streamPosition || payloads != nil
        }

        /// Whether a session at `streamPosition` sends the update with chunks of its own stream.
        func sendsOwnChunks(at streamPosition: UInt64?) -> Bool {
            guard let chunks, let streamPosition else { return false }
            return chunks.from != nil && chunks.from != streamPosition
        }
    }

    /// What a session computing an update from a state makes for everyone in it.
    struct Lead: Hashable {
        var state: Int
        var setting: Setting
    }

    /// Where a member's stream is: its state's name and the settings it last used.
    struct Position: Hashable {
        var name: Int
        var setting: Setting
    }

    private struct State {
        /// Leads being computed, and the sessions waiting for each (by ticket).
        var leads: [Lead: [UInt64: CheckedContinuation<Void, Never>]] = [:]
        var nextTicket: UInt64 = 0
        var steps: [Key: Step] = [:]
        var order: [Key] = []
        /// Where each member's stream is (by name; absent: unnamed).
        var positions: [UInt64: Position] = [:]
        /// Where each member's shared lossless stream is (`SharedLosslessStream`; absent: it takes none).
        var streamPositions: [UInt64: UInt64] = [:]
        var members = 0
        var nextMember: UInt64 = 0
        var nextName: UInt64 = 0
        var used = 0
        var made = 0
    }

    /// Updates kept at most; each holds a picture (shared with the sessions that took it).
    static let maximumSteps = 4
    private let state = Mutex(State())

    public init() {}

    /// A session starts watching; it stops when the membership is released.
    func join() -> Membership {
        let id = state.withLock { state in
            state.members += 1
            state.nextMember += 1
            return state.nextMember
        }
        return Membership(shared: self, id: id)
    }

    /// Whether two or more sessions watch (so updates are worth sharing).
    var isShared: Bool { state.withLock { $0.members > 1 } }

    func step(for key: Key, maximumPixels: Int, streamPosition: UInt64?) -> Step? {
        state.withLock { state in
            guard let found = state.steps[key], found.pixels <= maximumPixels, found.canBeTaken(at: streamPosition) else { return nil }
            state.used += 1
            return found
        }
    }

    /// The newest update kept from `state` with `setting`, made from a capture at full resolution
    /// no older than `notBefore`: a session in that state can send it without capturing at all.
    func newestStep(from state: Int, setting: Setting, maximumPixels: Int, notBefore: UInt64,
                    streamPosition: UInt64?) -> (step: Step, generation: UInt64)? {
        self.state.withLock { kept in
            let found = kept.steps.filter { $0.key.state == state && $0.key.setting == setting && $0.key.picture.mapping == nil
                && $0.value.pixels <= maximumPixels && $0.key.picture.generation >= notBefore && $0.value.canBeTaken(at: streamPosition) }
                .max { $0.key.picture.generation < $1.key.picture.generation }
            guard let found else { return nil }
            kept.used += 1
            return (found.value, found.key.picture.generation)
        }
    }

    /// Keeps `step` for the others, when another member is in the state it starts from.
    func record(_ step: Step, for key: Key, by member: UInt64) {
        guard step.chunks != nil || FrameStream.isShareable(step.update) else { return }
        state.withLock { state in
            // Kept only if another member is in that state with those settings: a kept update holds
            // the picture, so the session that made it would copy its whole picture when it next
            // changes it — a cost worth paying only for a session that takes the update.
            let position = Position(name: key.state, setting: key.setting)
            guard state.positions.contains(where: { $0.key != member && $0.value == position }), state.steps[key] == nil else { return }
            state.made += 1
            state.steps[key] = step
            state.order.append(key)
            while state.order.count > Self.maximumSteps { state.steps[state.order.removeFirst()] = nil }
        }
    }

    /// Whether the caller computes the next update from `lead`'s state (true; it must call
    /// `finish` afterwards) or another session already does (false: `waitForLead`, then take it).
    func claim(_ lead: Lead) -> Bool {
        state.withLock { state in
            guard state.leads[lead] == nil else { return false }
            state.leads[lead] = [:]
            return true
        }
    }

    /// Returns once the session computing `lead` has finished (at once if none does), or after
    /// `timeout` — a session never waits long on another.
    func waitForLead(_ lead: Lead, timeout: Duration) async {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                guard state.leads[lead] != nil else { return false }
                state.leads[lead]![ticket] = continuation
                return true
            }
            guard waiting else { return continuation.resume() }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.stopWaiting(lead, ticket: ticket)
            }
        }
    }

    private func stopWaiting(_ lead: Lead, ticket: UInt64) {
        state.withLock { $0.leads[lead]?.removeValue(forKey: ticket) }?.resume()
    }

    /// The update from `lead` is computed (and kept, if it could be shared): the sessions waiting
    /// for it go on.
    func finish(_ lead: Lead) {
        for waiter in state.withLock({ $0.leads.removeValue(forKey: lead) })?.values ?? [:].values { waiter.resume() }
    }

    /// A name for a state no settled identity describes, unlike any other.
    func freshName() -> Int {
        state.withLock { state in
            state.nextName += 1
            var hasher = Hasher()
            hasher.combine("unsettled")
            hasher.combine(state.nextName)
            return hasher.finalize()
        }
    }

    fileprivate func move(_ member: UInt64, to position: Position?) {
        state.withLock { $0.positions[member] = position }
    }

    fileprivate func moveStream(_ member: UInt64, to position: UInt64?) {
        state.withLock { $0.streamPositions[member] = position }
    }

    /// At how many shared-stream positions the members in `member`'s state with its settings are
    /// (1: all in one stream, or `member` alone). Each position beyond the first costs a
    /// compression of every update's lossless rects; past `maximumStreamsPerState`, an update
    /// made for them restarts the stream for all.
    fileprivate func streamsInState(of member: UInt64) -> Int {
        state.withLock { state in
            guard let position = state.positions[member] else { return 1 }
            return Set(state.positions.filter { $0.value == position }.map { state.streamPositions[$0.key] }).count
        }
    }

    /// Streams the sessions in one state may be spread over before an update restarts them: a
    /// session that went its own way (it computed an update of its own) and came back rides along
    /// in its own stream, each update's payloads compressed again for it, rather than cost every
    /// session a restart; a third stream (another such session, sessions joining) merges them all.
    static let maximumStreamsPerState = 2

    fileprivate func leave(_ member: UInt64) {
        state.withLock { state in
            state.members -= 1
            state.positions[member] = nil
            state.streamPositions[member] = nil
            // Alone again: nobody could take what is kept.
            if state.members <= 1 {
                state.steps = [:]
                state.order = []
            }
        }
    }

    /// A session's part in the sharing, for as long as it is held.
    final class Membership: Sendable {
        let shared: SharedUpdates
        let id: UInt64
        fileprivate init(shared: SharedUpdates, id: UInt64) {
            self.shared = shared
            self.id = id
        }
        deinit { shared.leave(id) }

        /// The session's stream is now in the state named `name` (nil: unnamed, shares nothing).
        func moved(to name: Int?, setting: Setting) { shared.move(id, to: name.map { Position(name: $0, setting: setting) }) }
        func record(_ step: Step, for key: Key) { shared.record(step, for: key, by: id) }
        /// The session's controller's shared lossless stream is now at `position`.
        func streamMoved(to position: UInt64?) { shared.moveStream(id, to: position) }
        var streamsInState: Int { shared.streamsInState(of: id) }
    }

    /// Updates taken from another session, and updates kept for others (diagnostics, benchmarks).
    public var counts: (used: Int, made: Int) { state.withLock { ($0.used, $0.made) } }
}
