extension ZRCMessage {
    /// Decodes one complete message (the output of `MessageReassembler`). Throws for an unknown type,
    /// missing or extra bytes, and any field outside its documented range.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> ZRCMessage {
        try decode(bytes[...])
    }

    public static func decode(_ bytes: ArraySlice<UInt8>) throws(WireError) -> ZRCMessage {
        guard let typeByte = bytes.first else { throw WireError(.truncated, "empty application message") }
        guard let type = MessageType(rawValue: typeByte) else {
            throw WireError(
                .unknownMessageType,
                "message type 0x\(String(typeByte, radix: 16)) is unknown; the peer may be newer than this program")
        }
        var reader = ByteReader(bytes.dropFirst(), context: MessageType.decodingContexts[Int(typeByte)])
        let message = try decodeFields(type, from: &reader)
        try reader.expectEnd()
        try message.validate()
        return message
    }

    private static func decodeFields(_ type: MessageType, from reader: inout ByteReader) throws(WireError) -> ZRCMessage {
        switch type {
        case .hello:
            return .hello(
                protocolVersion: try reader.readUInt16("protocolVersion"),
                capabilities: Capabilities(rawValue: try reader.readUInt32("capabilities")),
                agent: try reader.readString("agent"))
        case .ping:
            return .ping(id: try reader.readUInt64("id"), sentAtMicros: try reader.readUInt64("sentAtMicros"))
        case .pong:
            return .pong(
                id: try reader.readUInt64("id"),
                pingSentAtMicros: try reader.readUInt64("pingSentAtMicros"),
                receivedAtMicros: try reader.readUInt64("receivedAtMicros"))
        case .close:
            return .close(reason: CloseReason(rawValue: try reader.readUInt16("reason")), text: try reader.readString("text"))
        case .error:
            return .error(code: NoticeCode(rawValue: try reader.readUInt16("code")), text: try reader.readString("text"))
        case .pairRequest:
            return .pairRequest(controllerName: try reader.readString("controllerName"))
        case .pairAccepted:
            return .pairAccepted(hostName: try reader.readString("hostName"))
        case .frameUpdate:
            return .frameUpdate(try FrameUpdate(from: &reader))
        case .compactFrame:
            return .compactFrame(try CompactFrame(from: &reader))
        case .frameAck:
            return .frameAck(
                frameID: try reader.readUInt64("frameID"),
                receivedMicros: try reader.readUInt64("receivedMicros"),
                decodedMicros: try reader.readUInt64("decodedMicros"))
        case .cursorShape:
            return .cursorShape(try CursorShape(from: &reader))
        case .cursorPosition:
            return .cursorPosition(
                x: try reader.readInt32("x"), y: try reader.readInt32("y"),
                visible: try reader.readBool("visible"), shapeID: try reader.readUInt32("shapeID"))
        case .pictureRequest:
            return .pictureRequest(try PictureRequest(from: &reader))
        case .pictureMapping:
            return .pictureMapping(try PictureMapping(from: &reader))
        case .input:
            return .input(try InputEvent(from: &reader))
        case .stats:
            return .stats(
                rttMicros: try reader.readUInt64("rttMicros"),
                updatesPerSecondMilli: try reader.readUInt32("updatesPerSecondMilli"),
                bytesPerSecond: try reader.readUInt64("bytesPerSecond"),
                quality: try reader.readUInt8("quality"))
        case .linkStats:
            return .linkStats(try LinkStats(from: &reader))
        case .clipboard:
            return .clipboard(try ClipboardContent(from: &reader))
        case .clipboardRequest:
            return .clipboardRequest(try ClipboardContent.readSelection(from: &reader))
        case .relayCredentials:
            return .relayCredentials(try RelayCredential.read(from: &reader))
        case .monitorLayout:
            return .monitorLayout(try MonitorArea.read(from: &reader))
        case .fileTerms:
            return .fileTerms(try FileTerms(from: &reader))
        case .fileList:
            return .fileList(requestID: try reader.readUInt32("requestID"), itself: try reader.readBool("itself"), path: try reader.readString("path"))
        case .fileEntries:
            return .fileEntries(requestID: try reader.readUInt32("requestID"), final: try reader.readBool("final"),
                                entries: try FileEntry.read(from: &reader))
        case .fileOpen:
            return .fileOpen(try FileOpen(from: &reader))
        case .fileReady:
            return .fileReady(try FileReady(from: &reader))
        case .fileData:
            return .fileData(requestID: try reader.readUInt32("requestID"), offset: try reader.readUInt64("offset"),
                             data: try reader.readBlob("data", maxLength: FileTransferLimits.maxChunkBytes))
        case .fileAck:
            return .fileAck(requestID: try reader.readUInt32("requestID"), offset: try reader.readUInt64("offset"))
        case .fileEnd:
            return .fileEnd(requestID: try reader.readUInt32("requestID"), digest: try reader.readBytes(count: FileTransferLimits.digestBytes, "digest"))
        case .fileDone:
            return .fileDone(requestID: try reader.readUInt32("requestID"))
        case .fileFailed:
            return .fileFailed(requestID: try reader.readUInt32("requestID"), code: FileErrorCode(rawValue: try reader.readUInt16("code")),
                               text: try reader.readString("text"))
        }
    }
}
