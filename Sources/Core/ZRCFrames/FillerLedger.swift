/// File chunks in flight as a pacer's fillers, by request and end offset: the side that sends a
/// file (the host for downloads, the controller for uploads) notes each chunk, and the receiver's
/// acknowledgement of an offset covers every chunk of that request ending at or before it. A
/// request that ends takes its chunks out of flight: nobody will acknowledge them any more.
public struct FillerLedger: Sendable {
    private struct Sent: Sendable {
        var end: UInt64
        var id: UInt64
    }

    /// Each request's chunks in flight, in the order they left (so by end offset: a request's
    /// chunks go in file order), and an acknowledgement takes a prefix — not a scan of every
    /// chunk in flight, which was a per-acknowledgement copy of up to a window's worth of entries.
    private var chunks: [UInt32: [Sent]] = [:]
    /// Fillers use the upper half of the pacer's ID space (frames the lower).
    private var nextID: UInt64 = 1 << 63

    public init() {}

    /// A chunk of `request` ending at `end` left, `bytes` on the wire.
    public mutating func sent(request: UInt32, end: UInt64, bytes: Int, pacer: inout FramePacer, now: UInt64) {
        let id = nextID
        nextID &+= 1
        chunks[request, default: []].append(Sent(end: end, id: id))
        pacer.sentFiller(id: id, bytes: bytes, now: now)
    }

    /// Every chunk of `request` ending at or before `offset` arrived; the pacer counts them all
    /// with the last (its acknowledgements are cumulative).
    public mutating func acknowledged(request: UInt32, through offset: UInt64, pacer: inout FramePacer, now: UInt64) {
        guard let list = chunks[request] else { return }
        let count = list.firstIndex { $0.end > offset } ?? list.count
        guard count > 0 else { return }
        let last = list[count - 1].id
        if count == list.count {
            chunks[request] = nil
        } else {
            chunks[request]!.removeFirst(count)
        }
        pacer.acknowledged(frameID: last, now: now)
    }

    /// `request` ended: the filler IDs of its chunks still in flight, for `FramePacer.discardFillers`.
    public mutating func forget(request: UInt32) -> [UInt64] {
        chunks.removeValue(forKey: request)?.map(\.id) ?? []
    }
}
