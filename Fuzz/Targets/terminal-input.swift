import ZRCViewer

// Target `terminal-input`: what the local terminal sends `zrc-ctl view` in raw mode (keys, mouse,
// pastes, and the answers to the viewer's queries, which a program inside the terminal can forge),
// parsed and mapped to host input the way the viewer does. The first byte configures the run:
// bits 0–4 the chunk size (0: one feed), bit 5 a flush after each chunk (the escape timeout),
// bit 6 pixel mouse reports, bit 7 key releases reported.

/// Bytes the parser may hold: its documented caps on a sequence, a paste and a reply string.
private let bufferBound =
    TerminalInputParser.maximumSequence + TerminalInputParser.maximumPaste + TerminalInputParser.maximumReply

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTerminalInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let config = bytes.first else { return 0 }
    var parser = TerminalInputParser()
    var mapper = ViewerInputMapper(
        viewport: Viewport(remoteWidth: 1920, remoteHeight: 1080, areaWidth: 800, areaHeight: 450), cellWidth: 10, cellHeight: 20)
    mapper.reportsPixels = config & 0x40 != 0
    mapper.reportsKeyReleases = config & 0x80 != 0
    let input = bytes[1...]
    let chunkSize = config & 0x1F == 0 ? max(input.count, 1) : Int(config & 0x1F)
    var offset = input.startIndex
    while offset < input.endIndex {
        let end = min(offset + chunkSize, input.endIndex)
        var events = parser.feed(input[offset..<end])
        if config & 0x20 != 0 { events += parser.flushPendingEscape() }
        for event in events { _ = mapper.handle(event) }
        expect(parser.bufferedBytes <= bufferBound, "the parser holds \(parser.bufferedBytes) bytes")
        offset = end
    }
    for event in parser.flushPendingEscape() { _ = mapper.handle(event) }
    return 0
}
