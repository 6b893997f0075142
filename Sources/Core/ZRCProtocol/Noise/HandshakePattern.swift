/// A Noise handshake pattern: pre-messages (keys known in advance) and the message sequence.
///
/// Patterns are built from a name such as `IKpsk2` or `NNpsk0+psk2`: the base pattern comes from
/// a table written in the spec's own arrow notation (`HandshakePattern+Table.swift`), and `pskN`
/// modifiers are applied generically (spec §9.2), so adding a pattern is one line.
public struct HandshakePattern: Sendable, Hashable {
    /// The name as written in the protocol name, e.g. `XXpsk3`.
    public let name: String
    /// Keys the initiator has shared before the handshake (`-> s` above the `...`).
    public let initiatorPreMessage: [NoiseToken]
    /// Keys the responder has shared before the handshake (`<- s` above the `...`).
    public let responderPreMessage: [NoiseToken]
    /// The handshake messages; even indices are written by the initiator, odd by the responder.
    public let messages: [[NoiseToken]]

    /// Parses a pattern name (base pattern plus optional `+`-joined modifiers).
    public init(name: String) throws(NoiseError) {
        // Modifiers start at the first lower-case letter: "IK" + "psk2", "NN" + "psk0+psk2".
        let baseName = String(name.prefix { !$0.isLowercase })
        let modifierText = name.dropFirst(baseName.count)
        guard let notation = Self.table[baseName] else {
            throw NoiseError(.unsupportedPattern, "unknown handshake pattern '\(baseName)' in '\(name)'")
        }
        var pattern = Self.parse(notation: notation, name: name)
        if !modifierText.isEmpty {
            var seenPositions: Set<Int> = []
            for modifier in modifierText.split(separator: "+", omittingEmptySubsequences: false) {
                let position = try Self.pskPosition(modifier: modifier, patternName: name)
                guard seenPositions.insert(position).inserted else {
                    throw NoiseError(.unsupportedPattern, "modifier '\(modifier)' appears twice in '\(name)'")
                }
                try pattern.applyPSK(at: position)
            }
        }
        self = pattern
    }

    private init(name: String, initiatorPreMessage: [NoiseToken], responderPreMessage: [NoiseToken], messages: [[NoiseToken]]) {
        self.name = name
        self.initiatorPreMessage = initiatorPreMessage
        self.responderPreMessage = responderPreMessage
        self.messages = messages
    }

    /// One-way patterns (N, K, X) have a single message, and only the initiator may send after it.
    public var isOneWay: Bool { messages.count == 1 }

    /// Number of psk tokens, i.e. how many pre-shared keys the handshake needs.
    public var pskCount: Int { messages.joined().count(where: { $0 == .psk }) }

    /// Whether the psk rule "every `e` token also does MixKey(e.pub)" applies (spec §9.2).
    var usesPSK: Bool { pskCount > 0 }

    /// Tokens that `role` sends (its pre-message plus the messages it writes); e.g. whether the
    /// peer's static key will be learned: `tokens(writtenBy: peer).contains(.s)`.
    public func tokens(writtenBy role: NoiseRole) -> [NoiseToken] {
        let preMessage = role == .initiator ? initiatorPreMessage : responderPreMessage
        return preMessage + messages.indices.filter { NoiseRole.writer(ofMessage: $0) == role }.flatMap { messages[$0] }
    }

    /// `pskN`: psk0 goes at the start of the first message, pskN (N ≥ 1) at the end of message N.
    private static func pskPosition(modifier: Substring, patternName: String) throws(NoiseError) -> Int {
        let digits = modifier.dropFirst(3)
        guard modifier.hasPrefix("psk"), !digits.isEmpty, digits.allSatisfy(\.isASCIIDigitCharacter),
              let position = Int(digits) else {
            throw NoiseError(.unsupportedPattern, "unsupported modifier '\(modifier)' in '\(patternName)' (only pskN is implemented)")
        }
        return position
    }

    private mutating func applyPSK(at position: Int) throws(NoiseError) {
        guard position <= messages.count else {
            throw NoiseError(.unsupportedPattern, "'\(name)' has \(messages.count) messages, so psk\(position) is out of range")
        }
        var updated = messages
        if position == 0 {
            updated[0].insert(.psk, at: 0)
        } else {
            updated[position - 1].append(.psk)
        }
        self = HandshakePattern(name: name, initiatorPreMessage: initiatorPreMessage,
                                responderPreMessage: responderPreMessage, messages: updated)
    }

    /// Reads the spec notation, e.g. `"<- s ... -> e, es, s, ss <- e, ee, se"`. The table is
    /// constant data checked by tests, so a malformed entry is a programming error.
    private static func parse(notation: String, name: String) -> HandshakePattern {
        var initiatorPre: [NoiseToken] = []
        var responderPre: [NoiseToken] = []
        var messages: [[NoiseToken]] = []
        var inPreMessages = notation.contains("...")
        var sender: NoiseRole?
        for word in notation.split(whereSeparator: { $0 == " " || $0 == "," }) {
            switch word {
            case "->": sender = .initiator; if !inPreMessages { messages.append([]) }
            case "<-": sender = .responder; if !inPreMessages { messages.append([]) }
            case "...": inPreMessages = false
            default:
                guard let token = NoiseToken(rawValue: String(word)), let sender else {
                    preconditionFailure("malformed pattern table entry for \(name): \(word)")
                }
                if inPreMessages {
                    if sender == .initiator { initiatorPre.append(token) } else { responderPre.append(token) }
                } else {
                    precondition(NoiseRole.writer(ofMessage: messages.count - 1) == sender, "\(name): turns must alternate")
                    messages[messages.count - 1].append(token)
                }
            }
        }
        return HandshakePattern(name: name, initiatorPreMessage: initiatorPre, responderPreMessage: responderPre, messages: messages)
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
