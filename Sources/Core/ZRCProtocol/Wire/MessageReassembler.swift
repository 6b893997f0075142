/// Rebuilds application messages from decrypted transport plaintexts (see `MessageFragmenter`).
///
/// Every sequencing mistake a peer can make is an error: a continuation without FIRST, a FIRST while a
/// message is in progress, more bytes than announced, a LAST with bytes missing, unknown flag bits,
/// empty chunks. The announced total is checked against `maxMessageLength` before any buffer is
/// reserved. Errors are final, like the record decoder's: the stream is out of step.
public struct MessageReassembler: Sendable {
    private enum State: Sendable {
        case idle
        case receiving(buffer: [UInt8], total: Int)
        case failed(WireError)
    }

    public let maxMessageLength: Int
    private var state: State = .idle

    public init(maxMessageLength: Int = WireLimits.defaultMaxMessageLength) {
        precondition(maxMessageLength > 0, "maxMessageLength must be positive")
        self.maxMessageLength = maxMessageLength
    }

    /// True between a FIRST fragment and its LAST.
    public var isReceivingMessage: Bool {
        switch state {
        case .receiving: true
        case .idle, .failed: false
        }
    }

    /// Bytes the buffer of the message in progress has room for (0 when none is): for tests that
    /// check an announced length is not reserved up front.
    var reservedCapacity: Int {
        switch state {
        case .receiving(let buffer, _): buffer.capacity
        case .idle, .failed: 0
        }
    }

    /// Adds one plaintext; returns the complete message when this fragment finished one (a
    /// message in one fragment is the plaintext's own bytes, not a copy).
    public mutating func add(_ plaintext: [UInt8]) throws(WireError) -> ArraySlice<UInt8>? {
        do {
            return try process(plaintext)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func process(_ plaintext: [UInt8]) throws(WireError) -> ArraySlice<UInt8>? {
        if case .failed(let error) = state { throw error }
        var reader = ByteReader(plaintext, context: "transport fragment")
        let flagsByte = try reader.readUInt8("flags")
        let flags = FragmentFlags(rawValue: flagsByte)
        guard flags.isSubset(of: .known) else {
            throw sequenceError("flags 0x\(String(flagsByte, radix: 16)) use reserved bits (only 0x01 FIRST and 0x02 LAST exist)")
        }
        switch state {
        case .failed(let error):
            throw error  // unreachable after the check above; kept so the switch names every state
        case .idle:
            guard flags.contains(.first) else { throw sequenceError("a continuation fragment arrived without a FIRST fragment") }
            let total = Int(try reader.readUInt32("total message length"))
            guard total > 0 else { throw sequenceError("a FIRST fragment announced an empty message") }
            guard total <= maxMessageLength else {
                throw WireError(.lengthTooLarge, "a message announced \(total) bytes, limit is \(maxMessageLength)")
            }
            // The whole message in this fragment: its bytes as they are (any mismatch fails below).
            if flags.contains(.last), reader.remainingCount == total { return try reader.readSlice(count: total, "chunk") }
            // Reserve only what a few records can fill: announcing a length costs the peer 5 bytes,
            // and the whole total up front would let those 5 bytes cost us up to the limit.
            var buffer: [UInt8] = []
            buffer.reserveCapacity(min(total, 4 * WireLimits.maxRecordBody))
            return try append(&reader, flags: flags, to: &buffer, total: total)
        case .receiving(var buffer, let total):
            guard !flags.contains(.first) else {
                throw sequenceError("a FIRST fragment arrived while a message was incomplete (\(buffer.count) of \(total) bytes)")
            }
            state = .idle  // release the state's reference so appending does not copy the whole buffer
            return try append(&reader, flags: flags, to: &buffer, total: total)
        }
    }

    private mutating func append(_ reader: inout ByteReader, flags: FragmentFlags, to buffer: inout [UInt8], total: Int)
        throws(WireError) -> ArraySlice<UInt8>?
    {
        let chunkLength = reader.remainingCount
        guard chunkLength > 0 else { throw sequenceError("a fragment carried no message bytes") }
        guard chunkLength <= total - buffer.count else {
            throw sequenceError("fragments carry more than the announced \(total) bytes")
        }
        buffer.append(contentsOf: try reader.readSlice(count: chunkLength, "chunk"))
        if flags.contains(.last) {
            guard buffer.count == total else {
                throw sequenceError("the LAST fragment left \(total - buffer.count) of \(total) bytes missing")
            }
            return buffer[...]
        }
        guard buffer.count < total else {
            throw sequenceError("all \(total) bytes arrived but the fragment is not marked LAST")
        }
        state = .receiving(buffer: buffer, total: total)
        return nil
    }

    private func sequenceError(_ problem: String) -> WireError {
        WireError(.fragmentSequence, "transport fragments out of sequence: \(problem)")
    }
}
