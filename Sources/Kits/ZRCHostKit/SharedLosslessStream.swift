import Synchronization
import ZRCFrames
import ZRCProtocol

/// A lossless stream (zstd in ZRC) that several sessions can send: sessions whose controllers
/// announced `Capabilities.sharedLosslessStream` and hold the same picture send the same chunks of
/// one stream, so an update with lossless rects is made once for all of them and each chunk still
/// refers back to what the stream carried before (a scrolled strip of text costs what it costs one
/// viewer, not a frame of its own per update).
///
/// Where a controller's stream is, is a *position*: 0 at the start of any stream (a controller
/// that has decoded no chunk yet), else the number the stream gave the chunk that brought it there — unique on the host, so two controllers at the
/// same position hold the same history. A stream gives its next chunk only to the session that
/// says it is at the stream's head; any other must start a new stream, and its first chunk goes as
/// a restart (rect encoding 7) unless the controller is at 0 anyway. Sessions that share a stream
/// and a picture thus stay byte for byte in step; one that comes from elsewhere (joining the
/// group, having fallen behind) takes the group's updates with their payloads compressed again in
/// its own stream (`batch`: once per position), until the sessions of a state are spread over too
/// many streams and an update restarts one for all (`SharedUpdates.maximumStreamsPerState`). A
/// stream lives while a session or a kept update refers to it: at most one per session, plus a few
/// updates' worth.
public final class SharedLosslessStream: Sendable {
    private struct State {
        var encoder: (any RegionEncoder)?
        var head: UInt64 = 0
        /// The last update's chunks compressed here for sessions taking another's update (`batch`):
        /// the others at the same position take them too.
        var lastBatch: (update: UInt64, from: UInt64, chunks: [[UInt8]], to: UInt64)?
    }

    private let state: Mutex<State>
    private let makeEncoder: @Sendable () throws -> any RegionEncoder
    /// Positions are unique on the host: the last one given out.
    private static let lastPosition = Atomic<UInt64>(0)
    fileprivate static let restartCount = Atomic<Int>(0)

    /// Restarts made in this process (all hosts in it; diagnostics and benchmarks).
    public static var restarts: Int { restartCount.load(ordering: .relaxed) }

    /// `makeEncoder`: the host's encoder, whose `compressLossless` is the stream (made on first use).
    init(makeEncoder: @escaping @Sendable () throws -> any RegionEncoder) {
        self.makeEncoder = makeEncoder
        state = Mutex(State())
    }

    /// A new, empty stream made the same way.
    func fresh() -> SharedLosslessStream { SharedLosslessStream(makeEncoder: makeEncoder) }

    /// Compresses `payload` as the chunk after `position`, and the position it leads to; nil when the
    /// stream is elsewhere (another session took it on from there). After an error the stream is
    /// nowhere anyone is: every session starts a new one.
    func compress(_ payload: [UInt8], after position: UInt64) throws -> (chunk: [UInt8], position: UInt64)? {
        try state.withLock { state throws -> (chunk: [UInt8], position: UInt64)? in
            guard state.head == position else { return nil }
            state.head = Self.lastPosition.add(1, ordering: .relaxed).newValue
            if state.encoder == nil { state.encoder = try makeEncoder() }
            return (try state.encoder!.compressLossless(payload), state.head)
        }
    }

    /// The lossless payloads of update `update` (made by another session, through another
    /// stream) as chunks continuing this stream after `position`, and the position they lead to:
    /// compressed once, and the same chunks again for every session at that position; nil when
    /// the stream is elsewhere.
    func batch(_ payloads: [[UInt8]], update: UInt64, after position: UInt64) throws -> (chunks: [[UInt8]], position: UInt64)? {
        try state.withLock { state throws -> (chunks: [[UInt8]], position: UInt64)? in
            if let last = state.lastBatch, last.update == update, last.from == position { return (last.chunks, last.to) }
            guard state.head == position else { return nil }
            state.head = Self.lastPosition.add(1, ordering: .relaxed).newValue
            if state.encoder == nil { state.encoder = try makeEncoder() }
            var chunks: [[UInt8]] = []
            for payload in payloads { chunks.append(try state.encoder!.compressLossless(payload)) }
            state.lastBatch = (update, position, chunks, state.head)
            return (chunks, state.head)
        }
    }
}

/// The lossless chunks of one update, made through shared streams: what a session taking the
/// update must hold before, and what it holds after.
struct ChunkRun: Sendable {
    /// The stream position the first chunk continues; nil when the first chunk is a restart (any
    /// controller can take it).
    var from: UInt64?
    /// The stream the last chunk went through, and the position after it.
    var stream: SharedLosslessStream
    var to: UInt64
}

/// A session's way into shared streams (`SharingEncoder.lossless`): the stream its controller's
/// lossless stream is, and where.
struct LosslessRoute {
    var stream: SharedLosslessStream
    var position: UInt64 = 0
    /// Set before an update when the sessions in this one's state are elsewhere in their streams:
    /// its first chunk starts a new stream as a restart, so that all of them can take the update.
    var restartWanted = false
    /// The chunks of the update being made, and their payloads (so that a session whose stream is
    /// elsewhere can take the update with chunks of its own).
    var run: ChunkRun?
    var payloads: [[UInt8]] = []

    init(stream: SharedLosslessStream) { self.stream = stream }

    /// A payload as the next lossless rect: the next chunk of this session's stream, or, when the
    /// stream moved on without it (or a restart is wanted), the first of a new one.
    mutating func content(_ payload: [UInt8]) throws -> FrameRect.Content {
        payloads.append(payload)
        if !restartWanted, let (chunk, next) = try stream.compress(payload, after: position) {
            record(from: position, to: next)
            return .lossless(chunk)
        }
        let started = stream.fresh()
        // An empty stream takes any position 0.
        guard let (chunk, next) = try started.compress(payload, after: 0) else { throw FrameError("a new lossless stream refused its first chunk") }
        // A controller at 0 holds no history: the first chunk of any stream continues it.
        let restarts = position != 0 || restartWanted
        if restarts { Self.countRestart() }
        restartWanted = false
        stream = started
        record(from: restarts ? nil : 0, to: next)
        return restarts ? .losslessRestart(chunk) : .lossless(chunk)
    }

    private mutating func record(from: UInt64?, to next: UInt64) {
        if run == nil { run = ChunkRun(from: from, stream: stream, to: next) }
        run!.stream = stream
        run!.to = next
        position = next
    }

    private static func countRestart() { SharedLosslessStream.restartCount.add(1, ordering: .relaxed) }

    /// The session sends an update another made: its controller's stream is where the update's
    /// chunks leave it.
    mutating func take(_ chunks: ChunkRun?) {
        guard let chunks else { return }
        stream = chunks.stream
        position = chunks.to
    }

    /// The session sends an update another made whose chunks continue another position: its
    /// `payloads` as chunks of this session's stream instead (those other sessions at this
    /// position send too), or, when this stream moved on without it, of a new one.
    /// `update`: names the update, for those others.
    mutating func recompress(_ payloads: [[UInt8]], update: UInt64) throws -> [FrameRect.Content] {
        if let (chunks, next) = try stream.batch(payloads, update: update, after: position) {
            position = next
            return chunks.map { .lossless($0) }
        }
        run = nil
        restartWanted = false
        let contents = try payloads.map { try content($0) }
        self.payloads = []
        run = nil
        return contents
    }
}
