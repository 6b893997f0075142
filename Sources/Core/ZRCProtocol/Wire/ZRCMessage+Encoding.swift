extension ZRCMessage {
    /// The message bytes: type byte, then fields. Strings longer than 4096 UTF-8 bytes are cut at a
    /// scalar boundary (see `ByteWriter`); structural invariants (`validate()`) are preconditions.
    public func encode() -> [UInt8] {
        requireValid()
        var writer = ByteWriter(reservingCapacity: estimatedSize)
        writer.write(type.rawValue)
        switch self {
        case .hello(let protocolVersion, let capabilities, let agent):
            writer.write(protocolVersion)
            writer.write(capabilities.rawValue)
            writer.write(string: agent)
        case .ping(let id, let sentAtMicros):
            writer.write(id)
            writer.write(sentAtMicros)
        case .pong(let id, let pingSentAtMicros, let receivedAtMicros):
            writer.write(id)
            writer.write(pingSentAtMicros)
            writer.write(receivedAtMicros)
        case .close(let reason, let text):
            writer.write(reason.rawValue)
            writer.write(string: text)
        case .error(let code, let text):
            writer.write(code.rawValue)
            writer.write(string: text)
        case .pairRequest(let controllerName):
            writer.write(string: controllerName)
        case .pairAccepted(let hostName):
            writer.write(string: hostName)
        case .frameUpdate(let update):
            update.write(to: &writer)
        case .compactFrame(let frame):
            frame.write(to: &writer)
        case .frameAck(let frameID, let receivedMicros, let decodedMicros):
            writer.write(frameID)
            writer.write(receivedMicros)
            writer.write(decodedMicros)
        case .cursorShape(let shape):
            shape.write(to: &writer)
        case .cursorPosition(let x, let y, let visible, let shapeID):
            writer.write(x)
            writer.write(y)
            writer.write(visible)
            writer.write(shapeID)
        case .pictureRequest(let request):
            request.write(to: &writer)
        case .pictureMapping(let mapping):
            mapping.write(to: &writer)
        case .input(let event):
            event.write(to: &writer)
        case .stats(let rttMicros, let updatesPerSecondMilli, let bytesPerSecond, let quality):
            writer.write(rttMicros)
            writer.write(updatesPerSecondMilli)
            writer.write(bytesPerSecond)
            writer.write(quality)
        case .linkStats(let stats):
            stats.write(to: &writer)
        case .clipboard(let content):
            content.write(to: &writer)
        case .clipboardRequest(let selection):
            writer.write(selection.rawValue)
        case .relayCredentials(let list):
            RelayCredential.write(list, to: &writer)
        case .monitorLayout(let list):
            MonitorArea.write(list, to: &writer)
        case .fileTerms(let terms):
            terms.write(to: &writer)
        case .fileList(let requestID, let itself, let path):
            writer.write(requestID)
            writer.write(itself)
            writer.write(string: path)
        case .fileEntries(let requestID, let final, let entries):
            writer.write(requestID)
            writer.write(final)
            FileEntry.write(entries, to: &writer)
        case .fileOpen(let open):
            open.write(to: &writer)
        case .fileReady(let ready):
            ready.write(to: &writer)
        case .fileData(let requestID, let offset, let data):
            writer.write(requestID)
            writer.write(offset)
            writer.write(blob: data)
        case .fileAck(let requestID, let offset):
            writer.write(requestID)
            writer.write(offset)
        case .fileEnd(let requestID, let digest):
            writer.write(requestID)
            writer.write(bytes: digest)
        case .fileDone(let requestID):
            writer.write(requestID)
        case .fileFailed(let requestID, let code, let text):
            writer.write(requestID)
            writer.write(code.rawValue)
            writer.write(string: text)
        }
        return writer.bytes
    }

    /// The message's bytes in two parts whose concatenation is `encode()`: a file chunk's data is
    /// its tail, handed on as it is instead of copied behind the fields (sealing then copies it
    /// once, straight into the socket's buffer). Every other message is all head.
    public func encodedParts() -> (head: [UInt8], tail: [UInt8]) {
        guard case .fileData(let requestID, let offset, let data) = self else { return (encode(), []) }
        requireValid()
        var writer = ByteWriter(reservingCapacity: 17)
        writer.write(type.rawValue)
        writer.write(requestID)
        writer.write(offset)
        writer.write(UInt32(data.count))
        return (writer.bytes, data)
    }

    /// Encoding an invalid message is a programming error, never a peer's doing.
    private func requireValid() {
        do {
            try validate()
        } catch {
            preconditionFailure("refusing to encode an invalid message: \(error.message)")
        }
    }

    /// Enough capacity for the common cases so large frames are not copied while growing.
    private var estimatedSize: Int {
        switch self {
        case .frameUpdate(let update):
            Self.estimatedSize(of: update.rects)
        case .compactFrame(let frame):
            Self.estimatedSize(of: frame.rects)
        case .cursorShape(let shape): 32 + shape.rgba.count
        case .clipboard(let content): 16 + content.mimeType.utf8.count + content.data.count
        case .fileData(_, _, let data): 17 + data.count
        case .fileEntries(_, _, let entries): 8 + entries.count * 280
        case .hello, .ping, .pong, .close, .error, .pairRequest, .pairAccepted, .frameAck,
            .cursorPosition, .pictureRequest, .pictureMapping, .input, .stats, .linkStats, .clipboardRequest, .relayCredentials, .monitorLayout,
            .fileTerms, .fileList, .fileOpen, .fileReady, .fileAck, .fileEnd, .fileDone, .fileFailed:
            64
        }
    }

    private static func estimatedSize(of rects: [FrameRect]) -> Int {
        rects.reduce(64) { total, rect in
            switch rect.content {
            case .jpeg(let data), .lossless(let data), .losslessFrame(let data), .losslessRestart(let data): total + 13 + data.count
            case .raw(let pixels): total + 13 + pixels.count
            case .solid, .copy: total + 13
            }
        }
    }
}
