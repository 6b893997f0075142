import ZRCProtocol

// Target `record`: the byte stream after the preamble, as the network hands it over. The first
// byte picks the chunk size of a second, chunked run (0: one byte at a time); the rest is the stream.
// The decoder promises the same outcome whatever the chunking, so both runs must agree.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let first = bytes.first else { return 0 }
    let stream = bytes[1...]
    let whole = feed(stream, chunkSize: stream.count)
    let chunked = feed(stream, chunkSize: Int(first))
    expect(whole.failed == chunked.failed, "one feed \(whole.failed ? "failed" : "succeeded"), chunks of \(first) did not")
    guard !whole.failed else { return 0 }
    // Records that failed in the same call are dropped, so records are compared only for success.
    expect(whole.records == chunked.records, "chunks of \(first) gave other records than one feed")
    // What was not buffered was read as records, byte for byte.
    let consumed = stream.count - whole.buffered
    expect(whole.records.flatMap { $0.encode() } == Array(stream.prefix(consumed)), "records do not re-encode to their bytes")
    return 0
}

private func feed(_ stream: ArraySlice<UInt8>, chunkSize: Int) -> (records: [Record], failed: Bool, buffered: Int) {
    var decoder = RecordDecoder()
    var records: [Record] = []
    var offset = stream.startIndex
    repeat {
        let end = min(offset + max(chunkSize, 1), stream.endIndex)
        do {
            records += try decoder.feed(stream[offset..<end])
        } catch {
            expect((try? decoder.feed([UInt8]())) == nil, "the record decoder went on after a stream error")
            return (records, true, 0)
        }
        expect(decoder.bufferedByteCount < Record.headerLength + WireLimits.maxRecordBody,
               "\(decoder.bufferedByteCount) bytes buffered, more than one record")
        offset = end
    } while offset < stream.endIndex
    return (records, false, decoder.bufferedByteCount)
}
