/// Turns the received byte stream (after the preamble) into records, whatever the chunking.
///
/// Follows the swift-nio decoder contract: each `feed` drains every complete record, and bytes of an
/// incomplete record stay buffered untouched until the rest arrives. Memory stays bounded: between
/// calls the buffer holds less than one maximum record, and a header announcing a body above the
/// limit fails as soon as its 5 bytes are in, without waiting for (or buffering) the body.
///
/// A stream error is final: the stream has lost its framing, so every later call throws the same
/// error and the connection must be closed. Records that preceded the bad header in the same call
/// are dropped with it, since nothing more will be acted on for that connection.
public struct RecordDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Where the bytes not yet decoded start: consumed records are skipped, not shifted out of the
    /// buffer on every feed; the buffer is emptied when everything is consumed and compacted once
    /// more than a maximum record lies consumed before the index.
    private var readIndex = 0
    private var failure: WireError?

    public init() {}

    /// Bytes of an incomplete record waiting for the rest (always < 5 + 65535 between calls).
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Appends `bytes` and returns every record completed by them, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(WireError) -> [Record] {
        if let failure { throw failure }
        var records: [Record] = []
        var rest = bytes[...]
        // A record begun in an earlier read takes only the bytes it lacks; the rest of this read is
        // cut straight from it (reads rarely end on a record's edge, and buffering the whole read
        // behind the waiting record would copy every body once more).
        while bufferedByteCount > 0, !rest.isEmpty {
            let lacking: Int
            do {
                lacking = try lackingBytes()
            } catch {
                fail(error)
                throw error
            }
            let piece = rest.prefix(lacking)
            buffer.append(contentsOf: piece)
            rest = rest[piece.endIndex...]
            if let completed = try completeBuffered() { records.append(completed) }
        }
        if buffer.isEmpty, let direct = try feedDirectly(rest) { return records + direct }
        buffer.append(contentsOf: rest)
        do {
            while let (record, length) = try Self.decodeRecord(from: buffer[readIndex...]) {
                records.append(record)
                readIndex += length
            }
        } catch {
            fail(error)
            throw error
        }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > Self.compactionThreshold {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        return records
    }

    /// With nothing buffered, records are cut straight from contiguous `bytes` (a socket read) and
    /// only an incomplete last record is kept: each body is copied once, not twice. Nil when the
    /// bytes are not contiguous.
    private mutating func feedDirectly(_ bytes: some Collection<UInt8>) throws(WireError) -> [Record]? {
        var records: [Record] = []
        var failed: WireError?
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { raw in
            var offset = 0
            do throws(WireError) {
                while let (record, length) = try Self.decodeRecord(from: UnsafeBufferPointer(rebasing: raw[offset...])) {
                    records.append(record)
                    offset += length
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: raw[offset...]))
            } catch {
                failed = error
            }
        }
        if let failed {
            fail(failed)
            throw failed
        }
        return contiguous == nil ? nil : records
    }

    /// Bytes the buffered record lacks before it can be cut: the rest of its header, else the rest
    /// of its body. (A bad header has failed already, in `completeBuffered`, the moment its fifth
    /// byte came; the check here only keeps this function total.)
    private func lackingBytes() throws(WireError) -> Int {
        let buffered = buffer.count - readIndex
        guard buffered >= Record.headerLength else { return Record.headerLength - buffered }
        var length: UInt32 = 0
        for byte in buffer[(readIndex + 1)..<(readIndex + Record.headerLength)] { length = length << 8 | UInt32(byte) }
        let (_, bodyLength) = try Record.parseHeader(typeByte: buffer[readIndex], length: length)
        return Record.headerLength + bodyLength - buffered
    }

    /// The buffered record once it is whole (the buffer is then empty), else nil.
    private mutating func completeBuffered() throws(WireError) -> Record? {
        let decoded: (record: Record, consumed: Int)?
        do {
            decoded = try Self.decodeRecord(from: buffer[readIndex...])
        } catch {
            fail(error)
            throw error
        }
        guard let decoded else { return nil }
        // Only the bytes the record lacked were added: it ends where the buffer does.
        buffer.removeAll(keepingCapacity: true)
        readIndex = 0
        return decoded.record
    }

    private mutating func fail(_ error: WireError) {
        failure = error
        buffer = []
        readIndex = 0
    }

    /// Consumed bytes kept before the index at most: one maximum record.
    static let compactionThreshold = Record.headerLength + Int(UInt16.max)

    /// Decodes one record from the front of `bytes`, or returns nil when the bytes hold only part of
    /// one (the caller keeps them and retries with more). Throws as soon as a complete header is bad.
    public static func decodeRecord(from bytes: some RandomAccessCollection<UInt8>) throws(WireError) -> (record: Record, consumed: Int)? {
        guard bytes.count >= Record.headerLength else { return nil }
        var header = bytes.prefix(Record.headerLength).makeIterator()
        let typeByte = header.next()!
        var length: UInt32 = 0
        while let byte = header.next() { length = length << 8 | UInt32(byte) }
        let (type, bodyLength) = try Record.parseHeader(typeByte: typeByte, length: length)
        let total = Record.headerLength + bodyLength
        guard bytes.count >= total else { return nil }
        let bodyStart = bytes.index(bytes.startIndex, offsetBy: Record.headerLength)
        let body = Array(bytes[bodyStart..<bytes.index(bodyStart, offsetBy: bodyLength)])
        return (Record(type: type, body: body), total)
    }
}
