/// Estimates what the path to the controller really delivers, from frame acknowledgements, and
/// paces frames to it so no standing queue builds in the socket or the network (sans-IO: every
/// call takes "now").
///
/// - Delivery rate, after BBR: when a frame is sent, the bytes delivered (acknowledged) so far and
///   the time of that are noted; when it is acknowledged, (bytes delivered since) / (time since)
///   is one sample. A frame sent alone (nothing else in flight) also gives its size over its
///   send-to-acknowledgement time less the bare round trip, so stop-and-wait sending does not
///   read as a slow path. The estimate is the largest recent sample: idle moments only ever
///   make samples smaller than the path. A frame sent while what was in flight stayed below the
///   path's bytes is application-limited (after BBR): its sample may raise the estimate, never
///   lower it, so the host's own slower moments do not read as a slower path.
/// - The bare round trip is the smallest recent send-to-acknowledgement time or keepalive ping.
/// - Pacing: a frame leaves when nothing is in flight, or when what is in flight still fits the
///   path (rate × round trip, and an eighth more for frames' time beyond it: `windowBytes`) —
///   so at most the frame being transferred and that eighth wait, never a longer queue of
///   frames behind it. What a frame waits beyond the round trip and its own transfer is reported
///   as queueing.
public struct FramePacer: Sendable {
    /// How long a rate sample counts toward the maximum, and a round trip toward the minimum
    /// (BBR's windows: a few round trips of rate, ten seconds of round trip).
    public static let rateWindowMicros: UInt64 = 2_000_000
    public static let roundTripWindowMicros: UInt64 = 10_000_000
    /// Frames in flight at most while the path is not known yet, and beyond the path's bytes on a
    /// path so fast that a frame behind the others waits no longer than a decode (`maySend`).
    public static let unpacedFramesInFlight = 6
    /// Frames in flight at most, however long the path. Below it what is in flight is bounded by
    /// the path's bytes alone: a long path holds many parts of a change at once (frames are sized
    /// to cross in a few milliseconds, so at 200 ms a full path holds a dozen or more), and a
    /// count cap below that would leave it part empty — worse, the delivery rate is measured from
    /// what is in flight, so frames sized from a too-low rate would keep it too low.
    public static let maximumFramesInFlight = 48
    /// Deliveries smaller than this give no rate sample.
    public static let minimumSampleBytes = 16 * 1024

    private struct Sent: Sendable {
        var frameID: UInt64
        var bytes: Int
        var sendMicros: UInt64
        var deliveredAtSend: Int
        var deliveredMicrosAtSend: UInt64
        var alone: Bool
        /// What was in flight with it stayed below the path's bytes: the host, not the path, set
        /// the pace (BBR's "application-limited").
        var appLimited: Bool
        /// A filler (a file chunk), not a frame: it counts toward the path's bytes, not toward
        /// the frame counts.
        var filler = false
    }

    /// Fillers in flight at most before the path is known, and in any case: a few chunks.
    public static let minimumFillerWindow = 64 * 1024

    private var outstanding: [Sent] = []
    /// Frames (not fillers) among `outstanding`.
    private var framesOutstanding = 0
    private var delivered = 0
    private var deliveredMicros: UInt64 = 0
    private var rateSamples = WindowedExtreme<Double>(window: FramePacer.rateWindowMicros, keepsMaximum: true)
    private var roundTripSamples = WindowedExtreme<UInt64>(window: FramePacer.roundTripWindowMicros, keepsMaximum: false)
    /// Smoothed queueing delay of recent frames, µs.
    public private(set) var queueMicros: Double = 0

    public init() {}

    /// Bytes per second the path delivered recently (the windowed maximum); nil before the first
    /// acknowledgement.
    public var deliveryRate: Double? { rateSamples.best?.value }

    /// The delivery rate if a sample came within the last `rateWindowMicros` (nil: none did).
    /// The windowed maximum forgets old samples only when a new one comes, so after a stall
    /// the one sample it took can stand for ever; a sender pacing by it could send too slowly to
    /// ever deliver enough for another (`FillerPacing`).
    public func recentDeliveryRate(now: UInt64) -> Double? {
        guard let last = lastRateSampleMicros, now &- last <= Self.rateWindowMicros else { return nil }
        return deliveryRate
    }

    /// When the last rate sample was taken, µs.
    private var lastRateSampleMicros: UInt64?

    /// The path's round trip without queueing (windowed minimum), µs.
    public var minimumRoundTripMicros: UInt64? { roundTripSamples.best?.value }

    /// Bytes sent and not yet acknowledged.
    public var bytesInFlight: Int { inFlight }
    private var inFlight = 0

    /// A frame of `bytes` (on the wire) left at `now`.
    public mutating func sent(frameID: UInt64, bytes: Int, now: UInt64) {
        record(id: frameID, bytes: bytes, now: now, filler: false)
    }

    /// A filler (a file chunk) of `bytes` left at `now`; `id` must not be a frame's (fillers use
    /// the upper half of the ID space). Acknowledged like a frame (`acknowledged(frameID:)`).
    public mutating func sentFiller(id: UInt64, bytes: Int, now: UInt64) {
        record(id: id, bytes: bytes, now: now, filler: true)
    }

    private mutating func record(id: UInt64, bytes: Int, now: UInt64, filler: Bool) {
        // After an idle moment the delivery clock restarts, so idle time is not counted as
        // transfer time.
        if outstanding.isEmpty { deliveredMicros = now }
        let appLimited = pathBytes.map { Double(bytesInFlight + bytes) < $0 } ?? false
        outstanding.append(Sent(frameID: id, bytes: bytes, sendMicros: now, deliveredAtSend: delivered,
                                deliveredMicrosAtSend: deliveredMicros, alone: outstanding.isEmpty, appLimited: appLimited, filler: filler))
        inFlight += bytes
        if !filler { framesOutstanding += 1 }
    }

    /// Bytes a filler may still add now: what the window has left (at least `minimumFillerWindow`
    /// in all, so a path not yet measured, or measured while idle, still carries a few chunks).
    /// Fillers never wait for frames' counts and frames never for fillers' — frames wait only
    /// for room, which the fillers leave as their acknowledgements arrive.
    public var fillerRoom: Int {
        let drain = (deliveryRate ?? 0) * Self.fillerDrainMicros / 1_000_000
        let window = min(max(Double(Self.minimumFillerWindow), windowBytes ?? 0, drain), Double(Self.maximumFillerWindow))
        return max(0, Int(window) - bytesInFlight)
    }

    /// The room for fillers paced on a slow path (`FillerPacing`) to a receiver that acknowledges
    /// often: the path's window (`windowBytes`) and at least `minimumWindow`, which may be less
    /// than `minimumFillerWindow` there — what a window holds beyond the path's bytes waits in
    /// the link ahead of a frame sent beside the fillers. No less than the path's window: with
    /// the path's bytes alone (its rate measured from what that window let through) a simulated
    /// dsl link carried 84 % of what it could, against 99 % (`DownloadPacingTests`).
    public func pacedFillerRoom(minimumWindow: Int) -> Int {
        let window = min(max(Double(minimumWindow), windowBytes ?? 0), Double(Self.maximumFillerWindow))
        return max(0, Int(window) - bytesInFlight)
    }

    /// Fillers in flight at most, however fast the path reads: a rate sample from a burst of
    /// acknowledgements can be far above the path's, and the host refuses an upload more than
    /// 8 MiB ahead of what it wrote (`FileTransferDesk.Policy.maxUnwrittenBytes`); half that leaves
    /// room for the acknowledgements' own delay.
    public static let maximumFillerWindow = 4 << 20

    /// Fillers may also hold what the path delivers in this long: on a fast path (loopback, a LAN)
    /// the bare round trip is mostly the two ends' own processing, and a window of rate × that
    /// would starve the transfer (measured: 64 KiB in flight gave 55 MB/s on loopback, 1 MiB
    /// 150 MB/s), while input queued behind this much waits no more than these 4 ms. On a slow
    /// path it is less than the minimum window and changes nothing.
    public static let fillerDrainMicros = 4_000.0

    /// Fillers that will never be acknowledged (their transfer ended): no longer in flight, and
    /// no delivery counted for them.
    public mutating func discardFillers(_ ids: [UInt64]) {
        // Called after every file message, nearly always with none: no set built for those.
        guard !ids.isEmpty else { return }
        let gone = Set(ids)
        outstanding.removeAll { sent in
            guard sent.filler, gone.contains(sent.frameID) else { return false }
            inFlight -= sent.bytes
            return true
        }
    }

    /// A round trip measured otherwise (a keepalive ping), µs.
    public mutating func observeRoundTrip(micros: UInt64, now: UInt64) {
        roundTripSamples.add(micros, now: now)
    }

    /// The controller acknowledged `frameID` (and every older frame) at `now`.
    public mutating func acknowledged(frameID: UInt64, now: UInt64) {
        guard let index = outstanding.firstIndex(where: { $0.frameID == frameID }) else { return }
        let frame = outstanding[index]
        let covered = outstanding[...index]
        let coveredBytes = covered.reduce(0) { $0 + $1.bytes }
        delivered += coveredBytes
        inFlight -= coveredBytes
        framesOutstanding -= covered.lazy.filter { !$0.filler }.count
        outstanding.removeFirst(index + 1)
        deliveredMicros = now
        let elapsed = now &- frame.deliveredMicrosAtSend
        let roundTrip = now &- frame.sendMicros
        // A few small frames say more about the round trip than about the rate: only deliveries
        // large enough to fill a fast path for a while count.
        var sample: Double?
        if elapsed > 0, delivered - frame.deliveredAtSend >= Self.minimumSampleBytes {
            let rate = Double(delivered - frame.deliveredAtSend) * 1_000_000 / Double(elapsed)
            // A frame the host sent while the path was part empty measured the host's pace: it
            // may raise the estimate, never lower it — else a pause of the host's (small updates
            // while input is recent) would shrink the rate, and the updates sized from it after.
            if !frame.appLimited || rate > deliveryRate ?? 0 { sample = rate }
        }
        // Only a frame sent alone: one sent behind others may also have passed a bottleneck's
        // burst allowance untimed (a token bucket lets its first tens of kilobytes through at
        // line rate), which would read as a far faster path than there is.
        if frame.alone, frame.bytes >= Self.minimumSampleBytes, let bare = minimumRoundTripMicros, roundTrip > bare + 1_000 {
            sample = max(sample ?? 0, Double(frame.bytes) * 1_000_000 / Double(roundTrip - bare))
        }
        if let sample {
            rateSamples.add(sample, now: now)
            lastRateSampleMicros = now
        }
        roundTripSamples.add(roundTrip, now: now)
        // Queueing: what this frame took beyond the bare round trip and its own transfer.
        if let rate = deliveryRate, let minimum = minimumRoundTripMicros {
            let transfer = Double(frame.bytes) / rate * 1_000_000
            let waited = max(0, Double(roundTrip) - Double(minimum) - transfer)
            queueMicros = queueMicros * 0.7 + waited * 0.3
        }
    }

    /// The bytes the path holds: rate × bare round trip (nil until both are known).
    public var pathBytes: Double? {
        guard let rate = deliveryRate, let roundTrip = minimumRoundTripMicros else { return nil }
        return rate * Double(roundTrip) / 1_000_000
    }

    /// What may be in flight before a frame waits: the path's bytes and an eighth more, for what
    /// it delivers while frames spend time beyond the bare round trip (the controller's decoding,
    /// the host's sending). Without that allowance the rate measured from acknowledged frames
    /// stays below the path's on a long path: their round trip is longer than the bare one the
    /// bound is made of, so the bound alone never lets a sample exceed the estimate by much.
    public var windowBytes: Double? { pathBytes.map { $0 * Self.windowGain } }

    /// In flight beyond the path's bytes, as a share of them (`windowBytes`).
    public static let windowGain = 1.125

    /// Whether the bare round trip should be measured again (a ping while nothing is in flight):
    /// frames that always queue behind each other never show it, and without it a frame's
    /// transfer time cannot be told from the path's delay.
    public func wantsRoundTripProbe(now: UInt64) -> Bool {
        guard let minimum = roundTripSamples.best else { return true }
        return now &- minimum.micros > Self.roundTripWindowMicros / 2
    }

    /// Whether a frame may leave now: nothing in flight, room left in the path, or what is in
    /// flight crosses so fast (a LAN) that a frame behind it waits no longer than the one ahead
    /// takes to decode — there, overlapping one frame's encoding with the other's decoding is
    /// worth more than the wait. Until the path is known, and past its bytes, a few frames at most.
    public var maySend: Bool {
        if outstanding.isEmpty { return true }
        guard framesOutstanding < Self.maximumFramesInFlight else { return false }
        guard let windowBytes, let transfer = transferMicros(bytes: bytesInFlight) else {
            return framesOutstanding < Self.unpacedFramesInFlight
        }
        if Double(bytesInFlight) < windowBytes { return true }
        return framesOutstanding < Self.unpacedFramesInFlight && transfer <= Self.negligibleWaitMicros
    }

    /// A wait behind a frame in flight that is too short to matter.
    public static let negligibleWaitMicros = 10_000.0

    /// How long a frame of `bytes` takes to cross the path at the estimated rate, µs (nil: unknown).
    public func transferMicros(bytes: Int) -> Double? {
        deliveryRate.map { Double(bytes) / $0 * 1_000_000 }
    }

}
