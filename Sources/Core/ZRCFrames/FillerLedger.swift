/// File chunks in flight as a pacer's fillers, by request and end offset: the side that sends a
/// file (the host for downloads, the controller for uploads) notes each chunk, and the receiver's
/// acknowledgement of an offset covers every chunk of that request ending at or before it. A
/// request that ends takes its chunks out of flight: nobody will acknowledge them any more.
public struct FillerLedger: Sendable {
    private struct Key: Hashable, Sendable {
        var request: UInt32
        var end: UInt64
    }

    private var chunks: [Key: UInt64] = [:]
    /// Fillers use the upper half of the pacer's ID space (frames the lower).
    private var nextID: UInt64 = 1 << 63

    public init() {}

    /// A chunk of `request` ending at `end` left, `bytes` on the wire.
    public mutating func sent(request: UInt32, end: UInt64, bytes: Int, pacer: inout FramePacer, now: UInt64) {
        let id = nextID
        nextID &+= 1
        chunks[Key(request: request, end: end)] = id
        pacer.sentFiller(id: id, bytes: bytes, now: now)
    }

    /// Every chunk of `request` ending at or before `offset` arrived; the pacer counts them all
    /// with the last (its acknowledgements are cumulative).
    public mutating func acknowledged(request: UInt32, through offset: UInt64, pacer: inout FramePacer, now: UInt64) {
        let arrived = chunks.filter { $0.key.request == request && $0.key.end <= offset }
        guard let last = arrived.max(by: { $0.key.end < $1.key.end }) else { return }
        for key in arrived.keys { chunks[key] = nil }
        pacer.acknowledged(frameID: last.value, now: now)
    }

    /// `request` ended: the filler IDs of its chunks still in flight, for `FramePacer.discardFillers`.
    public mutating func forget(request: UInt32) -> [UInt64] {
        let gone = chunks.filter { $0.key.request == request }
        for key in gone.keys { chunks[key] = nil }
        return Array(gone.values)
    }
}
