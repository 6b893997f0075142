// Helpers compiled into every fuzz target (see Tools/fuzz.sh): the input as an array, invariant
// checks that name what broke, and cutting one input into the pieces a harness feeds.

/// libFuzzer's input, copied: decoders take arrays, and a copy keeps ASan's view of the bounds exact.
func fuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// A broken invariant ends the run as a crash. `fatalError`, not `precondition`: -O builds drop
/// a precondition's message, and the message is what tells a harness finding from a product trap.
func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}

/// Pieces each preceded by a big-endian u16 length (a length beyond the end takes what is left),
/// so mutating one length moves one boundary and the fuzzer keeps control of where pieces end.
func lengthPrefixedPieces(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    var pieces: [ArraySlice<UInt8>] = []
    var rest = bytes
    while rest.count >= 2 {
        let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
        rest = rest.dropFirst(2)
        pieces.append(rest.prefix(length))
        rest = rest.dropFirst(length)
    }
    return pieces
}

/// `bytes` cut in two where its leading big-endian u16 says.
func splitAtLengthPrefix(_ bytes: ArraySlice<UInt8>) -> (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>) {
    guard bytes.count >= 2 else { return (bytes.dropFirst(bytes.count), bytes.dropFirst(bytes.count)) }
    let length = Int(bytes[bytes.startIndex]) << 8 | Int(bytes[bytes.startIndex + 1])
    let body = bytes.dropFirst(2)
    return (body.prefix(length), body.dropFirst(length))
}
