public import ZRCFrames
public import ZRCProtocol

/// A host session's file requests, sans-IO: which listings and transfers are open, whether each
/// message of the controller fits its request's rules, and when download chunks may go. The driver
/// does the file work (`HostSessionAction.file…`) and reports back.
///
/// Rules: only a controlling session, and only the directions the host allows; at most
/// `maxOpenRequests` open; an upload's data arrives in order, never beyond its announced size,
/// and never more than `maxUnwrittenBytes` ahead of what the disk took (the controller paces by
/// the acknowledgements, which are sent as the data is written); a download's chunks fill what the
/// path has left after frames and input (`FramePacer.fillerRoom`, or `pacedFillerRoom` on a slow
/// path, where they are also smaller and spread at the path's pace: `FillerPacing`), one request
/// after the other in turn so several share fairly.
public struct FileTransferDesk: Sendable {
    public struct Policy: Sendable, Equatable {
        public var terms: FileTerms
        /// Upload data received but not yet written, per session, at most.
        public var maxUnwrittenBytes: Int

        public init(terms: FileTerms, maxUnwrittenBytes: Int = 8 << 20) {
            self.terms = terms
            self.maxUnwrittenBytes = maxUnwrittenBytes
        }
    }

    public enum UploadPhase: Sendable, Equatable { case opening, receiving, committing }
    public enum DownloadPhase: Sendable, Equatable { case opening, sending, ending }

    public struct Upload: Sendable, Equatable {
        public var size: UInt64
        public var received: UInt64 = 0
        public var written: UInt64 = 0
        public var phase: UploadPhase = .opening
    }

    public struct Download: Sendable, Equatable {
        public var size: UInt64 = 0
        /// Where the next chunk starts.
        public var next: UInt64 = 0
        public var acknowledged: UInt64 = 0
        public var phase: DownloadPhase = .opening
    }

    public enum Request: Sendable, Equatable {
        case listing
        case upload(Upload)
        case download(Download)
    }

    public let policy: Policy
    public private(set) var requests: [UInt32: Request] = [:]
    /// Downloads in the order they take turns.
    private var turns: [UInt32] = []
    /// Download chunks in flight, as the pacer's fillers.
    private var chunks = FillerLedger()
    /// Upload bytes handed to the driver and not yet reported written, over all uploads.
    private var unwritten = 0
    private var staleFillers: [UInt64] = []
    /// Spreads the chunks over time on a slow path (all downloads share it), as the controller
    /// does for uploads: a burst freed by one acknowledgement would sit in the path ahead of the
    /// answer to the next click.
    private var pacing = FillerPacing()
    /// When pacing lets the next chunk leave, if it held one back in the last plan (µs).
    public private(set) var pacedUntilMicros: UInt64?

    public init(policy: Policy) {
        self.policy = policy
    }

    /// Estimated wire bytes of a chunk message beyond its data (type, fields, record and tag).
    public static let chunkOverhead = 48

    /// The least window for download chunks on a paced path, where they are small: more than the
    /// 32 KiB a controller may let arrive before it acknowledges (the spec's rule), so none
    /// stalls, and less than the 64 KiB kept elsewhere. It applies where the path holds less than
    /// this: at dsl (10 Mbit/s, 40 ms: about 50 KB, a 56 KB window) the path's own window is
    /// larger; at 2 Mbit/s (10 KB) 64 KiB would keep 54 KB queued ahead of a click's answer
    /// (over 200 ms), 48 KiB 38 KB.
    public static let pacedMinimumWindow = 48 * 1024

    // MARK: The controller's messages

    /// A file message from the controller; `controlling`: the session controls the host.
    public mutating func handle(_ message: ZRCMessage, controlling: Bool, pacer: inout FramePacer, now: UInt64) -> [HostSessionAction] {
        switch message {
        case .fileList(let id, let itself, let path):
            if let refusal = refusal(id, controlling: controlling, direction: nil) { return refusal }
            let parsed: RemotePath
            do {
                parsed = try RemotePath(parsing: path)
            } catch {
                return failed(id, .invalidPath, error.description)
            }
            requests[id] = .listing
            return [.listFiles(requestID: id, path: parsed, itself: itself)]
        case .fileOpen(let open):
            return opened(open, controlling: controlling)
        case .fileData(let id, let offset, let data):
            guard case .upload(var upload) = requests[id], upload.phase == .receiving else {
                return requests[id] == nil ? [] : abort(id, .protocolError, "data for a request that is not receiving", keepPart: false)
            }
            guard offset == upload.received, upload.size - upload.received >= UInt64(data.count) else {
                return abort(id, .protocolError, "data at \(offset) (\(data.count) bytes); expected \(upload.received) and at most \(upload.size - upload.received)",
                             keepPart: false)
            }
            guard unwritten + data.count <= policy.maxUnwrittenBytes else {
                return abort(id, .protocolError, "more than \(policy.maxUnwrittenBytes) bytes sent ahead of the host's acknowledgements",
                             keepPart: true)
            }
            upload.received += UInt64(data.count)
            unwritten += data.count
            requests[id] = .upload(upload)
            return [.writeFile(requestID: id, data: data)]
        case .fileEnd(let id, let digest):
            guard case .upload(var upload) = requests[id], upload.phase == .receiving else {
                return requests[id] == nil ? [] : abort(id, .protocolError, "an end for a request that is not receiving", keepPart: false)
            }
            guard upload.received == upload.size else {
                return abort(id, .protocolError, "the end came after \(upload.received) of \(upload.size) bytes", keepPart: true)
            }
            upload.phase = .committing
            requests[id] = .upload(upload)
            return [.commitFile(requestID: id, digest: digest)]
        case .fileAck(let id, let offset):
            guard case .download(var download) = requests[id] else { return [] }
            // Cumulative: the controller may acknowledge several chunks at once.
            chunks.acknowledged(request: id, through: offset, pacer: &pacer, now: now)
            download.acknowledged = max(download.acknowledged, min(offset, download.next))
            requests[id] = .download(download)
            return []
        case .fileDone(let id):
            guard case .download(let download) = requests[id], download.phase == .ending else { return [] }
            forget(id)
            return [.closeFile(requestID: id, outcome: .done)]
        case .fileFailed(let id, let code, _):
            // The controller gave up (cancelled, or its side failed): the request ends quietly. An
            // upload's part stays for a resume unless the controller discarded it.
            guard let request = requests[id] else { return [] }
            forget(id)
            switch request {
            case .listing: return [.closeFile(requestID: id, outcome: .cancelled(keepPart: false))]
            case .upload: return [.closeFile(requestID: id, outcome: .cancelled(keepPart: code != .discarded))]
            case .download: return [.closeFile(requestID: id, outcome: .cancelled(keepPart: true))]
            }
        case .hello, .ping, .pong, .close, .error, .pairRequest, .pairAccepted, .frameUpdate, .compactFrame, .frameAck, .cursorShape,
             .cursorPosition, .pictureRequest, .pictureMapping, .monitorLayout, .input, .stats, .linkStats, .clipboard, .clipboardRequest,
             .relayCredentials, .fileTerms, .fileEntries, .fileReady:
            return []
        }
    }

    private mutating func opened(_ open: FileOpen, controlling: Bool) -> [HostSessionAction] {
        let id = open.requestID
        let direction: FileTerms.Directions = open.direction == .download ? .download : .upload
        if let refusal = refusal(id, controlling: controlling, direction: direction) { return refusal }
        let path: RemotePath
        do {
            path = try RemotePath(parsing: open.path)
        } catch {
            return failed(id, .invalidPath, error.description)
        }
        guard path.name != nil else { return failed(id, .invalidPath, "the transfer root itself is a directory, not a file") }
        switch open.direction {
        case .upload:
            guard open.size <= policy.terms.maxFileBytes else {
                return failed(id, .tooLarge, "\(open.size) bytes is more than this host's \(policy.terms.maxFileBytes) per file")
            }
            requests[id] = .upload(Upload(size: open.size))
        case .download:
            requests[id] = .download(Download())
        case .makeDirectory:
            // Answered at once by the driver, like a listing.
            requests[id] = .listing
        }
        return [.openFile(requestID: id, open: open, path: path)]
    }

    /// Why a new request `id` is refused (nil: it may open).
    private func refusal(_ id: UInt32, controlling: Bool, direction: FileTerms.Directions?) -> [HostSessionAction]? {
        guard requests[id] == nil else { return failed(id, .protocolError, "request \(id) is already open") }
        guard controlling else { return failed(id, .refused, "this session is view-only; only a session in control may transfer files") }
        let allowed = policy.terms.directions
        if let direction, !allowed.isSuperset(of: direction) {
            let what = direction == .upload ? "uploads" : "downloads"
            return failed(id, .refused, allowed.isEmpty ? "this host does not transfer files" : "this host does not allow \(what)")
        }
        if direction == nil, allowed.isEmpty { return failed(id, .refused, "this host does not transfer files") }
        guard requests.count < Int(policy.terms.maxOpenRequests) else {
            return failed(id, .limit, "more than \(policy.terms.maxOpenRequests) file requests open at once")
        }
        return nil
    }

    // MARK: The driver's reports

    /// The file is open: data may flow from `ready.offset`.
    public mutating func fileReady(_ ready: FileReady) -> [HostSessionAction] {
        switch requests[ready.requestID] {
        case .upload(var upload)? where upload.phase == .opening:
            upload.received = ready.offset
            upload.written = ready.offset
            upload.phase = .receiving
            requests[ready.requestID] = .upload(upload)
        case .download(var download)? where download.phase == .opening:
            download.size = ready.size
            download.next = ready.offset
            download.acknowledged = ready.offset
            download.phase = .sending
            requests[ready.requestID] = .download(download)
            turns.append(ready.requestID)
        default:
            return []
        }
        return [.send(.fileReady(ready))]
    }

    /// The driver's file work for `id` failed (open, write, read, commit): the request ends.
    public mutating func fileFailed(_ id: UInt32, _ code: FileErrorCode, _ text: String, keepPart: Bool) -> [HostSessionAction] {
        guard requests[id] != nil else { return [] }
        return abort(id, code, text, keepPart: keepPart)
    }

    /// A listing was sent in full (or failed and said so): it ends.
    public mutating func listingEnded(_ id: UInt32) {
        if case .listing? = requests[id] { forget(id) }
    }

    /// Upload bytes before `offset` are on disk: the controller hears so (and paces by it).
    public mutating func written(_ id: UInt32, through offset: UInt64, count: Int) -> [HostSessionAction] {
        // A request that ended gave its unwritten bytes back then (`forget`).
        guard case .upload(var upload) = requests[id] else { return [] }
        unwritten = max(0, unwritten - count)
        upload.written = offset
        requests[id] = .upload(upload)
        return [.send(.fileAck(requestID: id, offset: offset))]
    }

    /// The upload is checked, synced and in place.
    public mutating func committed(_ id: UInt32) -> [HostSessionAction] {
        guard case .upload(let upload) = requests[id], upload.phase == .committing else { return [] }
        forget(id)
        return [.send(.fileDone(requestID: id)), .closeFile(requestID: id, outcome: .done)]
    }

    /// A chunk of a download left: `wireBytes` now count as in flight.
    public mutating func chunkSent(_ id: UInt32, end: UInt64, wireBytes: Int, pacer: inout FramePacer, now: UInt64) {
        chunks.sent(request: id, end: end, bytes: wireBytes, pacer: &pacer, now: now)
    }

    // MARK: Time

    /// The chunks that may go now, in turn, while the path has room (`room` bytes) — none while
    /// frames or input's answer wait (`fillersWait`). On a path slow enough to pace (`rate`, the
    /// path's recent delivery rate in bytes per second: `FillerPacing`) chunks are smaller and
    /// leave at its pace; `pacedUntilMicros` then says when the next may.
    public mutating func plan(room: Int, fillersWait: Bool, rate: Double?, now: UInt64) -> [HostSessionAction] {
        var actions: [HostSessionAction] = []
        var room = fillersWait ? 0 : room
        let chunk = FillerPacing.chunkBytes(limit: Int(policy.terms.maxChunkBytes), rate: rate)
        pacedUntilMicros = nil
        var index = 0
        var idle = 0
        while !turns.isEmpty, idle < turns.count {
            if index >= turns.count { index = 0 }
            let id = turns[index]
            guard case .download(var download) = requests[id], download.phase == .sending else {
                turns.remove(at: index)
                continue
            }
            if download.next == download.size {
                download.phase = .ending
                requests[id] = .download(download)
                turns.remove(at: index)
                actions.append(.endFile(requestID: id))
                continue
            }
            guard room >= chunk / 2 || room > 0 && actions.isEmpty else { break }
            let count = Int(min(UInt64(chunk), download.size - download.next))
            let departure = pacing.departure(bytes: count + Self.chunkOverhead, rate: rate, now: now)
            guard departure <= now else {
                pacedUntilMicros = departure
                break
            }
            pacing.sent(bytes: count + Self.chunkOverhead, rate: rate, now: now)
            actions.append(.sendFileData(requestID: id, offset: download.next, count: count))
            download.next += UInt64(count)
            requests[id] = .download(download)
            room -= count + Self.chunkOverhead
            index += 1
            idle = 0
        }
        // Turns rotate so the next plan starts with the request after the last one served.
        if index > 0, index < turns.count { turns = Array(turns[index...] + turns[..<index]) }
        return actions
    }

    /// Whether download chunks are waiting for room.
    public var hasChunksToSend: Bool {
        turns.contains { id in
            if case .download(let download) = requests[id] { download.phase == .sending } else { false }
        }
    }

    /// The session ended: what every open request leaves behind.
    public mutating func sessionEnded() -> [HostSessionAction] {
        let open = requests.keys.sorted()
        for id in open { forget(id) }
        return open.map { .closeFile(requestID: $0, outcome: .cancelled(keepPart: true)) }
    }

    // MARK: Helpers

    private mutating func forget(_ id: UInt32) {
        if case .upload(let upload) = requests[id] { unwritten = max(0, unwritten - Int(upload.received - upload.written)) }
        requests[id] = nil
        turns.removeAll { $0 == id }
        staleFillers += chunks.forget(request: id)
    }

    /// Chunks of ended requests still counted in flight: the pacer drops them (else they would
    /// hold the path's room forever, since nobody acknowledges them any more).
    public mutating func takeStaleFillers() -> [UInt64] {
        defer { staleFillers = [] }
        return staleFillers
    }

    private mutating func abort(_ id: UInt32, _ code: FileErrorCode, _ text: String, keepPart: Bool) -> [HostSessionAction] {
        forget(id)
        return [.send(.fileFailed(requestID: id, code: code, text: text)), .closeFile(requestID: id, outcome: .failed(keepPart: keepPart))]
    }

    private func failed(_ id: UInt32, _ code: FileErrorCode, _ text: String) -> [HostSessionAction] {
        [.send(.fileFailed(requestID: id, code: code, text: text))]
    }
}

/// How a file request ended, for the driver's cleanup and the host's indicator.
public enum FileOutcome: Sendable, Equatable {
    case done
    /// Failed; `keepPart`: an upload's part stays for a resumed transfer.
    case failed(keepPart: Bool)
    case cancelled(keepPart: Bool)
}
