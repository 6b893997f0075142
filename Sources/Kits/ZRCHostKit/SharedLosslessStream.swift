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
/// and a picture thus stay byte for byte in step, and one that comes from elsewhere (joining the
/// group, having fallen behind) gets the group's restart. A stream lives while a session or a kept
/// update refers to it: at most one per session, plus a few updates' worth.
final class SharedLosslessStream: Sendable {
    private struct State {
        var encoder: (any RegionEncoder)?
        var head: UInt64 = 0
    }

    private let state: Mutex<State>
    private let makeEncoder: @Sendable () throws -> any RegionEncoder
    /// Positions are unique on the host: the last one given out.
    private static let lastPosition = Atomic<UInt64>(0)

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
    /// The chunks of the update being made.
    var run: ChunkRun?

    init(stream: SharedLosslessStream) { self.stream = stream }

    /// A payload as the next lossless rect: the next chunk of this session's stream, or, when the
    /// stream moved on without it (or a restart is wanted), the first of a new one.
    mutating func content(_ payload: [UInt8]) throws -> FrameRect.Content {
        if !restartWanted, let (chunk, next) = try stream.compress(payload, after: position) {
            record(from: position, to: next)
            return .lossless(chunk)
        }
        let started = stream.fresh()
        // An empty stream takes any position 0.
        guard let (chunk, next) = try started.compress(payload, after: 0) else { throw FrameError("a new lossless stream refused its first chunk") }
        // A controller at 0 holds no history: the first chunk of any stream continues it.
        let restarts = position != 0 || restartWanted
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

    /// The session sends an update another made: its controller's stream is where the update's
    /// chunks leave it.
    mutating func take(_ chunks: ChunkRun?) {
        guard let chunks else { return }
        stream = chunks.stream
        position = chunks.to
    }
}
