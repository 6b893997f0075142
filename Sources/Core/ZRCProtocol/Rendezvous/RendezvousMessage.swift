/// What travels through the rendezvous broker, before sealing: a controller's offer to connect
/// and the host's answer. Layout in Schemas/wire-protocol.md ("Rendezvous").
public enum RendezvousMessage: Sendable, Hashable {
    /// The controller's ICE parameters and where to answer.
    case offer(Offer)
    /// The host's ICE parameters, or why it will not connect now.
    case answer(Answer)

    public struct Offer: Sendable, Hashable {
        /// Unix time in microseconds; the host drops offers outside its skew window.
        public var timestampMicros: UInt64
        /// 16 random bytes: the host drops an offer whose nonce it has seen (a replay).
        public var nonce: [UInt8]
        /// 16 random bytes naming the topic the answer goes to.
        public var replyToken: [UInt8]
        public var flags: Flags
        public var ice: IceDescription

        /// The ICE stream's PseudoTCP conversation number: the nonce's first four bytes (big
        /// endian; 1 if they are all zero). Both sides know the nonce, which travels only sealed,
        /// so nobody else can forge a segment — an RST — that the stream would accept.
        public var conversation: UInt32 { Self.conversation(nonce: nonce) }

        public static func conversation(nonce: [UInt8]) -> UInt32 {
            let value = nonce.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return value == 0 ? 1 : value
        }

        public init(timestampMicros: UInt64, nonce: [UInt8], replyToken: [UInt8], flags: Flags, ice: IceDescription) {
            self.timestampMicros = timestampMicros
            self.nonce = nonce
            self.replyToken = replyToken
            self.flags = flags
            self.ice = ice
        }
    }

    public struct Answer: Sendable, Hashable {
        public var timestampMicros: UInt64
        /// The offer's nonce: an answer belongs to exactly one offer.
        public var nonce: [UInt8]
        public var outcome: Outcome

        public init(timestampMicros: UInt64, nonce: [UInt8], outcome: Outcome) {
            self.timestampMicros = timestampMicros
            self.nonce = nonce
            self.outcome = outcome
        }
    }

    public enum Outcome: Sendable, Hashable {
        /// The host's ICE description, and fresh credentials for its relays (status 2 on the
        /// wire when there are any, else status 0).
        case accepted(IceDescription, relays: [RelayCredential] = [])
        /// The host is negotiating as many links as it allows; try again shortly.
        case busy
    }

    /// What the controller asks of the host's side of the path.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `transportPreference: direct`: the host need not allocate relays.
        public static let noRelay = Flags(rawValue: 1 << 0)
        static let known: Flags = [.noRelay]
    }

    public static let nonceLength = 16
    public static let tokenLength = 16
    static let version: UInt8 = 1

    enum Kind: UInt8 {
        case offer = 1
        case answer = 2
    }

    var kind: Kind {
        switch self {
        case .offer: .offer
        case .answer: .answer
        }
    }

    public func encoded() -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: 512)
        writer.write(Self.version)
        writer.write(kind.rawValue)
        switch self {
        case .offer(let offer):
            writer.write(offer.timestampMicros)
            writer.write(bytes: offer.nonce)
            writer.write(bytes: offer.replyToken)
            writer.write(offer.flags.rawValue)
            offer.ice.encode(into: &writer)
        case .answer(let answer):
            writer.write(answer.timestampMicros)
            writer.write(bytes: answer.nonce)
            switch answer.outcome {
            case .accepted(let ice, let relays):
                writer.write(UInt8(relays.isEmpty ? 0 : 2))
                ice.encode(into: &writer)
                if !relays.isEmpty { RelayCredential.write(relays, to: &writer) }
            case .busy:
                writer.write(UInt8(1))
            }
        }
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes, context: "rendezvous message")
        let version = try reader.readUInt8("version")
        guard version == Self.version else {
            throw WireError(.protocolVersionMismatch, "rendezvous message version \(version); this program speaks \(Self.version)")
        }
        let rawKind = try reader.readUInt8("kind")
        guard let kind = Kind(rawValue: rawKind) else { throw reader.invalid("kind", "unknown rendezvous message kind \(rawKind)") }
        let timestamp = try reader.readUInt64("timestamp")
        let nonce = try reader.readBytes(count: Self.nonceLength, "nonce")
        switch kind {
        case .offer:
            let replyToken = try reader.readBytes(count: Self.tokenLength, "reply token")
            let flags = Flags(rawValue: try reader.readUInt8("flags"))
            guard Flags.known.isSuperset(of: flags) else { throw reader.invalid("flags", "unknown flag bits \(flags.rawValue)") }
            let ice = try IceDescription.decode(from: &reader)
            self = .offer(Offer(timestampMicros: timestamp, nonce: nonce, replyToken: replyToken, flags: flags, ice: ice))
        case .answer:
            let status = try reader.readUInt8("status")
            let outcome: Outcome
            switch status {
            case 0: outcome = .accepted(try IceDescription.decode(from: &reader))
            case 1: outcome = .busy
            case 2:
                let ice = try IceDescription.decode(from: &reader)
                let relays = try RelayCredential.read(from: &reader)
                guard !relays.isEmpty else { throw reader.invalid("relay credential count", "status 2 carries at least one relay") }
                outcome = .accepted(ice, relays: relays)
            default: throw reader.invalid("status", "unknown answer status \(status)")
            }
            self = .answer(Answer(timestampMicros: timestamp, nonce: nonce, outcome: outcome))
        }
        try reader.expectEnd()
    }
}
