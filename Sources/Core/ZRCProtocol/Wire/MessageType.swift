/// The first byte of every application message. Grouped by range: 0x0_ session control,
/// 0x1_ screen and cursor (host → controller, acks back), 0x2_ input, 0x3_ statistics, 0x4_ clipboard, 0x5_ files. 0x10 is
/// reserved (an earlier draft's `screenInfo`; the screen size travels in every `frameUpdate`) and,
/// like every unassigned value, an unknown type.
public enum MessageType: UInt8, Sendable, Hashable, CaseIterable {
    case hello = 0x01
    case ping = 0x02
    case pong = 0x03
    case close = 0x04
    case error = 0x05
    case relayCredentials = 0x06
    case pairRequest = 0x08
    case pairAccepted = 0x09
    case frameUpdate = 0x11
    case frameAck = 0x12
    case cursorShape = 0x13
    case cursorPosition = 0x14
    case pictureRequest = 0x15
    case pictureMapping = 0x16
    case monitorLayout = 0x17
    case compactFrame = 0x18
    case input = 0x20
    case stats = 0x30
    case linkStats = 0x31
    case clipboard = 0x40
    case clipboardRequest = 0x41
    case fileTerms = 0x50
    case fileList = 0x51
    case fileEntries = 0x52
    case fileOpen = 0x53
    case fileReady = 0x54
    case fileData = 0x55
    case fileAck = 0x56
    case fileEnd = 0x57
    case fileDone = 0x58
    case fileFailed = 0x59
}

extension MessageType {
    /// "<type> message" for every type byte, made once: a decoding error names the message, and
    /// building the name per message (reflection) cost a large transfer 2 % of its time.
    static let decodingContexts: [String] = (0...255).map { byte in
        MessageType(rawValue: UInt8(byte)).map { "\($0) message" } ?? "message"
    }
}
