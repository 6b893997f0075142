/// Where a controller finds a host waiting with a code: a token derived from the code's locator
/// and the UTC day, the same on the LAN (an mDNS service's TXT record) and at every rendezvous
/// broker (a topic). It names the meeting point without revealing the locator to someone who does
/// not try all hundred, and nothing about the code's secret.
///
/// - token(day) = first 16 bytes of SHA-512(lv_cat("ZRC pair meeting point 1", LL, day as u32 BE))
/// - broker: the host's announcement at `zrc/v1/pair/<hex token>/host` (retained), the
///   controllers' messages at `zrc/v1/pair/<hex token>/a/<hex run>`, the host's answers at
///   `zrc/v1/pair/<hex token>/b/<hex run>` (run: 16 random bytes a controller draws per attempt).
public enum PairingMeetingPoint {
    public static let tokenLength = 16
    public static let runLength = 16
    static let label = Array("ZRC pair meeting point 1".utf8)

    public static func token(code: PairingCode, day: UInt32, group: any CPaceGroup) -> [UInt8] {
        let dayBytes: [UInt8] = [UInt8(day >> 24), UInt8(day >> 16 & 0xFF), UInt8(day >> 8 & 0xFF), UInt8(day & 0xFF)]
        return Array(group.sha512([CPace.lengthValueConcatenation([label, Array(code.text.prefix(2).utf8), dayBytes])]).prefix(tokenLength))
    }

    public static func topic(token: [UInt8]) -> String { "zrc/v1/pair/" + Hex.encode(token) }
    public static func announcementTopic(token: [UInt8]) -> String { topic(token: token) + "/host" }
    public static func controllerTopic(token: [UInt8], run: [UInt8]) -> String { topic(token: token) + "/a/" + Hex.encode(run) }
    public static func hostTopic(token: [UInt8], run: [UInt8]) -> String { topic(token: token) + "/b/" + Hex.encode(run) }
    /// What a host subscribes to for the controllers' messages.
    public static func controllersFilter(token: [UInt8]) -> String { topic(token: token) + "/a/+" }

    /// The run a controller's topic names (nil: not one of ours).
    public static func run(inControllerTopic topic: String, token: [UInt8]) -> [UInt8]? {
        let prefix = Self.topic(token: token) + "/a/"
        guard topic.hasPrefix(prefix), let run = Hex.decode(String(topic.dropFirst(prefix.count))), run.count == runLength else { return nil }
        return run
    }
}

/// What travels at a meeting point. Format u8 (1), kind u8, then by kind:
/// - 1 announcement (host, retained): sid (16 bytes), expiresAt (u64, Unix seconds).
/// - 2 start (controller): MSGa (u16 length, ≤ 8227 bytes).
/// - 3 answer (host): MSGb (u16 length, ≤ 8227 bytes).
/// - 4 confirm (controller): 32 bytes.
/// - 5 outcome (host): u8 0 paired, 1 wrong code, 2 refused; then a reason (u8 length, UTF-8), shown
///   to the person only after `TerminalSafeText` cleaning.
public enum PairingMeetingMessage: Sendable, Equatable {
    case announcement(sid: [UInt8], expiresAt: UInt64)
    case start([UInt8])
    case answer([UInt8])
    case confirm([UInt8])
    case outcome(Outcome, reason: String)

    public enum Outcome: UInt8, Sendable {
        case paired = 0
        case wrongCode = 1
        case refused = 2
    }

    static let format: UInt8 = 1
    public static let sidLength = 16

    public var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: 64)
        writer.write(Self.format)
        switch self {
        case .announcement(let sid, let expiresAt):
            writer.write(UInt8(1))
            writer.write(bytes: sid)
            writer.write(expiresAt)
        case .start(let message):
            writer.write(UInt8(2))
            writer.write(UInt16(message.count))
            writer.write(bytes: message)
        case .answer(let message):
            writer.write(UInt8(3))
            writer.write(UInt16(message.count))
            writer.write(bytes: message)
        case .confirm(let tag):
            writer.write(UInt8(4))
            writer.write(bytes: tag)
        case .outcome(let outcome, let reason):
            writer.write(UInt8(5))
            writer.write(outcome.rawValue)
            writer.write(shortString: reason)
        }
        return writer.bytes
    }

    /// Reads a message a peer (or anyone at the broker) published; every length is checked
    /// before it is read.
    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes[...], context: "meeting point message")
        guard try reader.readUInt8("format") == Self.format else { throw reader.invalid("format", "is not \(Self.format)") }
        let kind = try reader.readUInt8("kind")
        switch kind {
        case 1:
            self = .announcement(sid: try reader.readBytes(count: Self.sidLength, "sid"), expiresAt: try reader.readUInt64("expiresAt"))
        case 2, 3:
            let length = Int(try reader.readUInt16("CPace message length"))
            guard length <= CPace.maximumMessageLength else {
                throw reader.invalid("CPace message length", "is \(length), at most \(CPace.maximumMessageLength)")
            }
            let message = try reader.readBytes(count: length, "CPace message")
            self = kind == 2 ? .start(message) : .answer(message)
        case 4:
            self = .confirm(try reader.readBytes(count: CodePairingKeys.confirmationLength, "confirmation"))
        case 5:
            let raw = try reader.readUInt8("outcome")
            guard let outcome = Outcome(rawValue: raw) else { throw reader.invalid("outcome", "is \(raw), must be 0…2") }
            self = .outcome(outcome, reason: try reader.readShortString("reason"))
        default:
            throw reader.invalid("kind", "is \(kind), must be 1…5")
        }
        try reader.expectEnd()
    }
}
