/// What both ends of a session remember of the previous frame update so a `compactFrame` can leave
/// it out: its frame ID (a compact frame's is one more), its send time and the screen's size. Both
/// sides note every update, full or compact, in order.
public struct CompactFrameContext: Sendable {
    private var lastFrameID: UInt64 = 0
    private var lastSendMicros: UInt64?
    private var screen: CompactFrame.Size?

    public init() {}

    /// Host: the message for `update` — compact when the update follows the previous one (the next
    /// frame ID, timestamps in order), otherwise the full `frameUpdate`; noted either way.
    public mutating func message(for update: FrameUpdate) -> ZRCMessage {
        defer { note(update) }
        guard update.frameID == lastFrameID &+ 1, update.frameID != 0,
              update.encodeDoneMicros >= update.captureMicros, update.sendMicros >= update.encodeDoneMicros
        else { return .frameUpdate(update) }
        let size = CompactFrame.Size(width: UInt16(update.screenWidth), height: UInt16(update.screenHeight))
        let sendTime: CompactFrame.SendTime = lastSendMicros.flatMap { update.sendMicros >= $0 ? .after(update.sendMicros - $0) : nil }
            ?? .absolute(update.sendMicros)
        return .compactFrame(CompactFrame(sendTime: sendTime, queueMicros: update.sendMicros - update.encodeDoneMicros,
                                          encodeMicros: update.encodeDoneMicros - update.captureMicros,
                                          screenSize: size == screen ? nil : size, quality: update.quality,
                                          rects: update.rects))
    }

    /// Both sides: an update went or came as a full `frameUpdate` (or was expanded).
    public mutating func note(_ update: FrameUpdate) {
        lastFrameID = update.frameID
        lastSendMicros = update.sendMicros
        // Sizes beyond 16 bits never pass validation; the clamp only keeps this total.
        screen = CompactFrame.Size(width: UInt16(clamping: update.screenWidth), height: UInt16(clamping: update.screenHeight))
    }

    /// Controller: the update a compact frame stands for, checked as a `frameUpdate` is.
    public mutating func expand(_ frame: CompactFrame) throws(WireError) -> FrameUpdate {
        func invalid(_ problem: String) -> WireError { WireError(.invalidValue, "compactFrame message: \(problem)") }
        guard lastFrameID < .max else { throw invalid("follows frame \(lastFrameID), the last there can be") }
        guard let size = frame.screenSize ?? screen else { throw invalid("names no screen size, and no update before it did") }
        let send: UInt64
        switch frame.sendTime {
        case .absolute(let micros):
            send = micros
        case .after(let delta):
            guard let last = lastSendMicros else { throw invalid("gives its send time after a previous update, and there is none") }
            guard delta <= .max - last else { throw invalid("send time overflows") }
            send = last + delta
        }
        guard frame.queueMicros <= send, frame.encodeMicros <= send - frame.queueMicros else {
            throw invalid("timestamps before the clock's start")
        }
        let encodeDone = send - frame.queueMicros
        let update = FrameUpdate(frameID: lastFrameID + 1, captureMicros: encodeDone - frame.encodeMicros, encodeDoneMicros: encodeDone,
                                 sendMicros: send, screenWidth: UInt32(size.width), screenHeight: UInt32(size.height),
                                 quality: frame.quality, rects: frame.rects)
        if let problem = update.problem() { throw invalid(problem) }
        note(update)
        return update
    }
}
