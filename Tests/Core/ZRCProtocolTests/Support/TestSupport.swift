import ZRCTestSupport
@testable import ZRCProtocol

/// The kind of `WireError` thrown by `body`, or nil when it succeeded.
func errorKind<T>(_ body: () throws(WireError) -> T) -> WireError.Kind? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.kind
    }
}

/// The error thrown by `body`, or nil when it succeeded.
func wireError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The full sending pipeline without encryption: fragment each message and wrap every plaintext in
/// a transport record. Encryption is a bijection on record bodies, so framing is tested without it.
func encodeStream(_ messages: [ZRCMessage], fragmenter: MessageFragmenter = MessageFragmenter()) -> [UInt8] {
    var writer = ByteWriter()
    for message in messages {
        for plaintext in fragmenter.fragments(of: message.encode()) {
            Record(type: .transport, body: plaintext).encode(into: &writer)
        }
    }
    return writer.bytes
}

/// The receiving pipeline, fed in the given chunks. Checks the decoder's memory bound after every chunk.
func decodeStream(_ chunks: [ArraySlice<UInt8>]) throws(WireError) -> [ZRCMessage] {
    var decoder = RecordDecoder()
    var reassembler = MessageReassembler()
    var messages: [ZRCMessage] = []
    for chunk in chunks {
        for record in try decoder.feed(chunk) {
            if let message = try reassembler.add(record.body) { messages.append(try ZRCMessage.decode(message)) }
        }
        precondition(decoder.bufferedByteCount < Record.headerLength + WireLimits.maxRecordBody)
    }
    return messages
}

/// Cuts `bytes` at random points (including empty chunks).
func randomChunks(_ bytes: [UInt8], seed: UInt64) -> [ArraySlice<UInt8>] {
    var rng = SplitMix64(seed: seed)
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < bytes.count {
        let maxChunk = [1, 7, 64, 4096, 100_000][Int.random(in: 0..<5, using: &rng)]
        let end = min(bytes.count, offset + Int.random(in: 0...maxChunk, using: &rng))
        chunks.append(bytes[offset..<end])
        offset = end
    }
    return chunks
}
