import Synchronization
import ZRCFrames
import ZRCProtocol

/// JPEG encodings of recent captures, shared between sessions: viewers that watch the same
/// picture (same capture, same scaling) at the same quality need the same rectangle encoded once,
/// not once each — a classroom of view-only viewers costs about what one does.
///
/// Only JPEG is shared here: a lossless chunk depends on everything its stream carried before, so
/// it is shared only as part of a whole update (`SharedUpdates`, `SharedLosslessStream`). Bounded in bytes; entries of old
/// captures go first; nothing is kept while only one session watches.
public final class SharedEncodings: Sendable {
    /// Which pixels an encoding was made from: a capture of the source, as is or scaled.
    struct Picture: Hashable, Sendable {
        /// `ScreenCapture.generation` (0: unknown, never shared).
        var generation: UInt64
        /// The scaling applied (nil: the capture as it is).
        var mapping: PictureMapping?

        init(generation: UInt64, mapping: PictureMapping?) {
            self.generation = generation
            self.mapping = mapping
        }
    }

    struct Key: Hashable {
        var picture: Picture
        var rect: PixelRect
        var quality: Int
        var fullChroma: Bool
    }

    private struct State {
        var entries: [Key: [UInt8]] = [:]
        /// Insertion order, for eviction.
        var order: [Key] = []
        var bytes = 0
        var hits = 0
        var misses = 0
        /// Sessions using the cache: with one, nothing is kept (nobody could reuse it).
        var members = 0
    }

    /// At most this many bytes of JPEG are kept (a few full 1080p frames at motion quality).
    public let maximumBytes: Int
    private let state = Mutex(State())

    public init(maximumBytes: Int = 4 << 20) { self.maximumBytes = maximumBytes }

    func jpeg(_ key: Key) -> [UInt8]? {
        state.withLock { state in
            let found = state.entries[key]
            if found != nil { state.hits += 1 } else { state.misses += 1 }
            return found
        }
    }

    func store(_ key: Key, _ data: [UInt8]) {
        guard data.count <= maximumBytes else { return }
        state.withLock { state in
            guard state.members > 1, state.entries[key] == nil else { return }
            state.entries[key] = data
            state.order.append(key)
            state.bytes += data.count
            // Oldest first; an entry of a newer capture than all others is never the one evicted.
            var dropped = 0
            while state.bytes > maximumBytes, dropped < state.order.count {
                let old = state.order[dropped]
                state.bytes -= state.entries.removeValue(forKey: old)?.count ?? 0
                dropped += 1
            }
            if dropped > 0 { state.order.removeFirst(dropped) }
        }
    }

    /// A session starts using the cache; it stops when the membership is released.
    func join() -> Membership {
        state.withLock { $0.members += 1 }
        return Membership(shared: self)
    }

    fileprivate func leave() {
        state.withLock { state in
            state.members -= 1
            // Alone again: what is kept can no longer be shared.
            if state.members <= 1 { state = State(hits: state.hits, misses: state.misses, members: state.members) }
        }
    }

    /// A session's use of the cache, for as long as it is held.
    final class Membership: Sendable {
        private let shared: SharedEncodings
        fileprivate init(shared: SharedEncodings) { self.shared = shared }
        deinit { shared.leave() }
    }

    /// Lookups that found an encoding and those that did not (diagnostics and benchmarks).
    public var counts: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }
}

/// A session's encoder that looks in the host's `SharedEncodings` before encoding a JPEG, and
/// leaves what it encodes there for the other sessions.
struct SharingEncoder: RegionEncoder {
    var base: any RegionEncoder
    let shared: SharedEncodings
    /// Held while the encoder lives: the cache keeps encodings only while two or more sessions use it.
    let membership: SharedEncodings.Membership
    /// The pixels the next calls encode from; set by the session before each update.
    var picture: SharedEncodings.Picture
    /// The shared lossless stream this session's controller decodes (it announced
    /// `sharedLosslessStream`); nil: the base encoder's own stream.
    var lossless: LosslessRoute?

    init(base: any RegionEncoder, shared: SharedEncodings, picture: SharedEncodings.Picture = .init(generation: 0, mapping: nil)) {
        self.base = base
        self.shared = shared
        self.picture = picture
        membership = shared.join()
    }

    mutating func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] {
        guard picture.generation != 0 else { return try base.encodeJPEG(image, rect: rect, quality: quality, fullChroma: fullChroma) }
        let key = SharedEncodings.Key(picture: picture, rect: rect, quality: quality, fullChroma: fullChroma)
        if let found = shared.jpeg(key) { return found }
        let data = try base.encodeJPEG(image, rect: rect, quality: quality, fullChroma: fullChroma)
        shared.store(key, data)
        return data
    }

    mutating func compressLossless(_ payload: [UInt8]) throws -> [UInt8] { try base.compressLossless(payload) }

    mutating func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] { try base.compressLosslessFrame(payload) }

    mutating func losslessContent(_ payload: [UInt8]) throws -> FrameRect.Content {
        guard lossless != nil else { return .lossless(try base.compressLossless(payload)) }
        return try lossless!.content(payload)
    }
}
