public import ZRCProtocol

/// Encoding once for several viewers: sessions whose controllers hold the same picture, and that
/// are offered the same capture with the same configuration, would compute the same update — so
/// one computes it and the others send it as their own next frame (see `SharedUpdates` in the
/// host). An update with stream chunks can be shared only between controllers whose lossless
/// streams are in the same place (a stream the host shares between them,
/// `Capabilities.sharedLosslessStream`); otherwise lossless rects go as frames of their own
/// (`Capabilities.losslessFrames`), since a chunk depends on everything its stream held before.
extension FrameStream {
    /// Everything the next update depends on besides the capture and the configuration: the host
    /// pixels the controller's picture was made from, which of its tiles are still inexact or
    /// owed, and the move and part memory. Taking another stream's state takes its picture along
    /// (copy-on-write: the pixels are shared until either stream changes them).
    public struct PictureState: Sendable {
        var sent: PixelBuffer
        var lossy: TileMask?
        var deferred: TileMask?
        var partCursor: Int
        var moveDetector: MoveDetector
        var lastChangeMicros: UInt64
    }

    public var pictureState: PictureState {
        get {
            PictureState(sent: sent, lossy: lossy, deferred: deferred, partCursor: partCursor, moveDetector: moveDetector,
                         lastChangeMicros: lastChangeMicros)
        }
        set {
            sent = newValue.sent
            lossy = newValue.lossy
            deferred = newValue.deferred
            partCursor = newValue.partCursor
            moveDetector = newValue.moveDetector
            lastChangeMicros = newValue.lastChangeMicros
        }
    }

    /// Names the state when it is settled — `sent` holds exactly the pixels of the capture last
    /// offered (nothing owed) — as that capture's name and the tiles still inexact; nil otherwise.
    /// Two streams with the same settled identity hold the same picture, so they can share
    /// updates from then on though they got there separately: an update either computes turns
    /// that picture into the next one. (The move and part memory only decide how an update is
    /// found, not whether it is right, so they are left out: a stream taking an update takes the
    /// memory along.) `capture`: a name unique to the pixels last offered (a source's generation
    /// and any scaling).
    public func settledIdentity(capture: some Hashable) -> Int? {
        guard deferred == nil else { return nil }
        var hasher = Hasher()
        hasher.combine(capture)
        hasher.combine(sent.width)
        hasher.combine(sent.height)
        hasher.combine(lossy.flatMap { $0.isEmpty ? nil : $0 })
        return hasher.finalize()
    }

    /// Sends, as this stream's next frame, the update another stream in this stream's state made
    /// from the same capture, and takes the state it left (`state`). The caller made sure the
    /// states were the same. Nil, and nothing changes, when the update holds a chunk of another
    /// session's stream (it cannot be shared).
    /// `streamAgreed`: the caller made sure the controller's lossless stream is where the
    /// update's chunks continue it (a stream shared between sessions), so chunks may be taken too.
    public mutating func adopt(_ update: FrameUpdate, state: PictureState, streamAgreed: Bool = false) -> FrameUpdate? {
        guard streamAgreed || Self.isShareable(update) else { return nil }
        pictureState = state
        captureWanted = false
        lastStages = StageTimings(detectMicros: 0, encodeMicros: 0)
        var adopted = makeUpdate(update.rects, screenWidth: Int(update.screenWidth), screenHeight: Int(update.screenHeight),
                                 captureMicros: update.captureMicros, encodeDoneMicros: update.encodeDoneMicros, quality: 0)
        adopted.quality = update.quality
        return adopted
    }

    /// The tiles still inexact and those owed: with `sent` unchanged (no update made), equal marks
    /// mean the state did not change, whatever capture was looked at.
    public struct Marks: Equatable, Sendable {
        var lossy: TileMask?
        var deferred: TileMask?
    }

    public var marks: Marks { Marks(lossy: lossy.flatMap { $0.isEmpty ? nil : $0 }, deferred: deferred) }

    /// The controller's picture's size (0 × 0 before the first update).
    public var pictureSize: (width: Int, height: Int) { (sent.width, sent.height) }

    /// Whether `update` means the same to any controller in the state it was made for: it holds
    /// no chunk of a session's lossless stream.
    public static func isShareable(_ update: FrameUpdate) -> Bool { !holdsStreamChunks(update) }

    /// Whether `update` holds chunks of a lossless stream (encodings 4 and 7): it means the same
    /// to another controller only if that one's stream is where the chunks continue it.
    public static func holdsStreamChunks(_ update: FrameUpdate) -> Bool {
        update.rects.contains {
            switch $0.content {
            case .lossless, .losslessRestart: true
            default: false
            }
        }
    }
}
