import ZRCFrames
import ZRCProtocol

/// What an established session does with each message of the controller.
extension HostSessionMachine.Established {
    static let believableRoundTripMicros: UInt64 = 60_000_000

    mutating func handle(_ message: ZRCMessage, policy: HostSessionMachine.Policy, now: UInt64) -> [HostSessionAction] {
        switch message {
        case .hello:
            return []  // a repeated hello changes nothing
        case .frameAck(let frameID, _, _):
            frames?.acknowledged(frameID, now: now)
            return [.acknowledgeFrame(frameID)]
        case .input(let event):
            guard policy.acceptsInput else { return notice(.unsupported, "this host does not accept input", now: now) }
            guard role != .watching else { return notice(.inputRefused, "this session is view-only; input is ignored", now: now) }
            // Every event is work on the shared X connection: a flood must not starve the other
            // sessions' capture.
            guard budgets.input.allow(nowMicros: now) else {
                return notice(.overloaded, "input arrives faster than \(Int(SessionBudgets.inputPerSecond)) events/s; the excess is dropped",
                              now: now)
            }
            frames?.noteInput(event, now: now)
            return [.inject(event)]
        case .pictureRequest(let request):
            return frames?.requestPicture(request) == true ? [.showPicture(request)] : []
        case .clipboard(let content):
            if let refusal = clipboardRefusal(content.selection, setting: true, policy: policy, now: now) { return refusal }
            guard content.text != nil else {
                return notice(.clipboardRefused, "clipboard content must be UTF-8 text (\(ClipboardContent.utf8Text)); this was not", now: now)
            }
            return [.setClipboard(content)]
        case .clipboardRequest(let selection):
            return clipboardRefusal(selection, setting: false, policy: policy, now: now) ?? [.readClipboard(selection)]
        case .pong(_, let pingSentAt, _):
            // Our keepalive or probe ping, sent with this host's monotonic clock; a pong to a ping
            // never sent (in the future, or a minute old) is not believed.
            if now >= pingSentAt, now - pingSentAt < Self.believableRoundTripMicros {
                frames?.roundTripMeasured(now - pingSentAt, now: now)
                if frames == nil { ownPacer.observeRoundTrip(micros: now - pingSentAt, now: now) }
            }
            return []
        case .fileList(let id, _, _):
            guard files != nil else { return [.send(.fileFailed(requestID: id, code: .refused, text: "this host does not transfer files"))] }
            return fileMessage(message, now: now)
        case .fileOpen(let open):
            guard files != nil else { return [.send(.fileFailed(requestID: open.requestID, code: .refused, text: "this host does not transfer files"))] }
            return fileMessage(message, now: now)
        case .fileData, .fileAck, .fileEnd, .fileDone, .fileFailed:
            return fileMessage(message, now: now)
        case .stats, .error:
            return []
        case .ping, .close, .pairRequest, .pairAccepted, .frameUpdate, .compactFrame, .cursorShape, .cursorPosition, .pictureMapping, .linkStats,
             .relayCredentials, .monitorLayout, .fileTerms, .fileEntries, .fileReady:
            return notice(.unsupported, "this host does not handle \(message.type) messages", now: now)
        }
    }

    private mutating func fileMessage(_ message: ZRCMessage, now: UInt64) -> [HostSessionAction] {
        let controlling = role == .controlling
        return withFiles { desk, pacer in desk.handle(message, controlling: controlling, pacer: &pacer, now: now) } ?? []
    }

    /// Runs `body` on the file desk with the pacer its chunks share (the frames', or the
    /// session's own while no frames go); chunks of ended requests leave the pacer after.
    mutating func withFiles<T>(_ body: (inout FileTransferDesk, inout FramePacer) -> T) -> T? {
        guard files != nil else { return nil }
        let result: T
        if frames != nil {
            result = frames!.withPacer { body(&files!, &$0) }
            let stale = files!.takeStaleFillers()
            frames!.withPacer { $0.discardFillers(stale) }
        } else {
            result = body(&files!, &ownPacer)
            ownPacer.discardFillers(files!.takeStaleFillers())
        }
        return result
    }

    mutating func notice(_ code: NoticeCode, _ text: String, now: UInt64) -> [HostSessionAction] {
        budgets.notices.allow(nowMicros: now) ? [.send(.error(code: code, text: text))] : []
    }

    /// The notice saying why this session may not read or set `selection` (nil: it may).
    private mutating func clipboardRefusal(_ selection: ClipboardSelection, setting: Bool, policy: HostSessionMachine.Policy, now: UInt64)
        -> [HostSessionAction]? {
        let code: NoticeCode = setting ? .clipboardRefused : .clipboardUnavailable
        let verb = setting ? "set" : "read"
        guard let clipboard = policy.clipboard else { return notice(code, "this host does not share its clipboard", now: now) }
        if role == .watching {
            guard clipboard.inViewOnlySessions else {
                return notice(code, "this session is view-only, and the host does not let watchers \(verb) its clipboard", now: now)
            }
            // Watchers allowed the clipboard read it only: setting it would let a view-only session
            // put text where the controlling user's next paste types it.
            if setting { return notice(code, "this session is view-only: watchers may read the host's clipboard, never set it", now: now) }
        }
        guard clipboard.selections.contains(selection) else {
            return notice(code, "this host does not share its \(selection) selection", now: now)
        }
        // Each one is X work and up to 1 MiB.
        guard budgets.clipboard.allow(nowMicros: now) else {
            return notice(.overloaded, "clipboard requests arrive faster than \(Int(SessionBudgets.clipboardPerSecond))/s; the excess is dropped",
                          now: now)
        }
        return nil
    }
}
