// WriteMessage / ReadMessage (spec §5.3): each token of the current message pattern in order,
// then the payload, encrypted once any key has been mixed in.

extension HandshakeState {
    /// Writes the next handshake message carrying `payload` (encrypted when the pattern has a key
    /// by then; the first message of NN/XX etc. travels in clear, so put nothing secret there).
    ///
    /// Throws without changing state when it is not our turn or the message would exceed 65535
    /// bytes; a failure while processing tokens (a small-order peer key) fails the handshake.
    public mutating func writeMessage(payload: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        let index = try currentMessage(expecting: .writeMessage)
        let tokens = protocolName.pattern.messages[index]
        let length = messageLength(tokens: tokens, payloadLength: payload.count)
        guard length <= Self.maxMessageLength else {
            throw NoiseError(.messageTooLarge, "a handshake message of \(length) bytes exceeds the Noise limit of "
                                 + "\(Self.maxMessageLength); send less payload")
        }
        do throws(NoiseError) {
            var message: [UInt8] = []
            message.reserveCapacity(length)
            for token in tokens { try write(token, into: &message) }
            message += try symmetric.encryptAndHash(payload)
            advance(past: index)
            return message
        } catch {
            phase = .failed
            throw error
        }
    }

    /// Reads the peer's next handshake message and returns its payload. Any failure — wrong turn,
    /// bad length, small-order key, failed authentication — fails the handshake for good, so a
    /// peer cannot probe it with altered retries. Do not act on the payload before `isComplete`
    /// unless the pattern authenticates the sender by then.
    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        if case .complete = phase {
            // Keep a finished handshake intact: its keys are still to be split.
            throw NoiseError(.handshakeComplete, "the handshake is already complete; handshake messages are no longer accepted")
        }
        do throws(NoiseError) {
            let index = try currentMessage(expecting: .readMessage)
            guard message.count <= Self.maxMessageLength else {
                throw NoiseError(.messageTooLarge, "a handshake message of \(message.count) bytes exceeds the Noise limit of "
                                     + "\(Self.maxMessageLength)")
            }
            let tokens = protocolName.pattern.messages[index]
            let minimum = messageLength(tokens: tokens, payloadLength: 0)
            guard message.count >= minimum else {
                throw NoiseError(.messageTooShort, "handshake message \(index + 1) has \(message.count) bytes; "
                                     + "its keys and tags need at least \(minimum)")
            }
            var rest = message[...]
            for token in tokens { try read(token, from: &rest) }
            let payload = try symmetric.decryptAndHash(Array(rest))
            advance(past: index)
            return payload
        } catch {
            phase = .failed
            throw error
        }
    }

    /// The index of the message to process now, or the error explaining why there is none.
    private func currentMessage(expecting step: Step) throws(NoiseError) -> Int {
        switch phase {
        case .inProgress(let index):
            guard nextStep == step else {
                let expected = step == .writeMessage ? "the peer's message must be read first" : "we must write the next message"
                throw NoiseError(.wrongTurn, "handshake message \(index + 1) is out of turn: \(expected)")
            }
            return index
        case .complete:
            throw NoiseError(.handshakeComplete, "the handshake is already complete; split it into a transport")
        case .failed:
            throw NoiseError(.handshakeFailed, "the handshake failed earlier and cannot continue; start a new one")
        }
    }

    /// The exact size of a message with these tokens: `s` and the payload grow by a 16-byte tag
    /// once a key exists, and psk patterns have a key from the first `e` on.
    private func messageLength(tokens: [NoiseToken], payloadLength: Int) -> Int {
        var keyed = symmetric.hasKey
        var length = 0
        for token in tokens {
            switch token {
            case .e:
                length += NoisePublicKey.length
                if protocolName.pattern.usesPSK { keyed = true }
            case .s:
                length += NoisePublicKey.length + (keyed ? CipherState.tagLength : 0)
            case .ee, .es, .se, .ss, .psk:
                keyed = true
            }
        }
        return length + payloadLength + (keyed ? CipherState.tagLength : 0)
    }

    private mutating func write(_ token: NoiseToken, into message: inout [UInt8]) throws(NoiseError) {
        switch token {
        case .e:
            let ephemeral = keys.injectedEphemeral ?? crypto.generateKeyPair()
            keys.injectedEphemeral = nil
            keys.localEphemeral = ephemeral
            message += ephemeral.publicKey.bytes
            mixEphemeral(ephemeral.publicKey)
        case .s:
            guard let localStatic = keys.localStatic else { throw Self.missing("our static key") }
            message += try symmetric.encryptAndHash(localStatic.publicKey.bytes)
        case .ee, .es, .se, .ss:
            try mixDH(token)
        case .psk:
            mixPSK()
        }
    }

    private mutating func read(_ token: NoiseToken, from message: inout ArraySlice<UInt8>) throws(NoiseError) {
        switch token {
        case .e:
            let key = try NoisePublicKey(bytes: take(NoisePublicKey.length, from: &message))
            try crypto.validatePublicKey(key)
            keys.remoteEphemeral = key
            mixEphemeral(key)
        case .s:
            let length = NoisePublicKey.length + (symmetric.hasKey ? CipherState.tagLength : 0)
            let key = try NoisePublicKey(bytes: symmetric.decryptAndHash(take(length, from: &message)))
            try crypto.validatePublicKey(key)
            keys.remoteStatic = key
        case .ee, .es, .se, .ss:
            try mixDH(token)
        case .psk:
            mixPSK()
        }
    }

    /// MixHash(e.pub), plus MixKey(e.pub) in psk patterns (spec §9.2) so that no payload is ever
    /// encrypted under a key that skipped the ephemeral.
    private mutating func mixEphemeral(_ key: NoisePublicKey) {
        symmetric.mixHash(key.bytes)
        if protocolName.pattern.usesPSK { symmetric.mixKey(publicBytes: key.bytes) }
    }

    private mutating func mixDH(_ token: NoiseToken) throws(NoiseError) {
        // Which of our keys meets which of theirs depends on the role (spec §5.3).
        let local: NoiseKeyPair?
        let remote: NoisePublicKey?
        switch (token, role) {
        case (.ee, _): (local, remote) = (keys.localEphemeral, keys.remoteEphemeral)
        case (.es, .initiator): (local, remote) = (keys.localEphemeral, keys.remoteStatic)
        case (.es, .responder): (local, remote) = (keys.localStatic, keys.remoteEphemeral)
        case (.se, .initiator): (local, remote) = (keys.localStatic, keys.remoteEphemeral)
        case (.se, .responder): (local, remote) = (keys.localEphemeral, keys.remoteStatic)
        case (.ss, _): (local, remote) = (keys.localStatic, keys.remoteStatic)
        case (.e, _), (.s, _), (.psk, _): preconditionFailure("\(token) is not a DH token")
        }
        guard let local else { throw Self.missing("our key for \(token)") }
        guard let remote else { throw Self.missing("the peer's key for \(token)") }
        symmetric.mixKey(try crypto.dh(privateKey: local.privateKey, publicKey: remote))
    }

    private mutating func mixPSK() {
        // init checked that there is one psk per psk token.
        symmetric.mixKeyAndHash(keys.psks[keys.nextPSK])
        keys.nextPSK += 1
    }

    private mutating func advance(past index: Int) {
        guard index == protocolName.pattern.messages.count - 1 else {
            phase = .inProgress(nextMessage: index + 1)
            return
        }
        let ciphers = symmetric.split()
        phase = .complete(initiatorToResponder: ciphers.initiatorToResponder, responderToInitiator: ciphers.responderToInitiator)
        // Ephemeral private key and psks are no longer needed; release them so they are wiped now.
        keys.localEphemeral = nil
        keys.psks = []
    }

    /// Splits off `count` bytes; lengths were checked up front, so this cannot run short.
    private func take(_ count: Int, from message: inout ArraySlice<UInt8>) -> [UInt8] {
        let field = Array(message.prefix(count))
        message = message.dropFirst(count)
        return field
    }

    private static func missing(_ what: String) -> NoiseError {
        NoiseError(.missingKey, "the handshake reached a step that needs \(what), which is not available")
    }
}
