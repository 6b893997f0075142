import Synchronization
import ZRCControllerKit
import ZRCFiles
import ZRCProtocol
import ZRCSodium

/// A download into the browser's own download: the file client's chunks flow to the HTTP response
/// of the page's `GET /files/download/TICKET`. Bytes are acknowledged to the host only once the
/// response took them, so the host sends no faster than the browser writes (and nothing here grows
/// beyond the host's window). The last chunk is held back until the whole file's digest checks: a
/// corrupted or cut-off download never completes in the browser (its Content-Length is not met).
final class PageDownloadStream: DownloadSink, Sendable {
    let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let state: Mutex<State>

    private struct State {
        var offset: UInt64 = 0
        var taken: UInt64 = 0
        var held: [UInt8]?
        var digest = FileDigest()
        var acknowledger: (@Sendable (UInt64) -> Void)?
        var failure: FileSystemError?
    }

    init() {
        (chunks, continuation) = AsyncThrowingStream.makeStream()
        state = Mutex(State())
    }

    var offset: UInt64 { state.withLock { $0.offset } }
    var prefixDigest: [UInt8] { Array(repeating: 0, count: FileTransferLimits.digestBytes) }

    func acknowledge(with acknowledger: @escaping @Sendable (UInt64) -> Void) {
        state.withLock { $0.acknowledger = acknowledger }
    }

    func take(_ data: [UInt8]) throws(FileSystemError) -> Bool {
        let released: [UInt8]? = try state.withLock { (state: inout State) throws(FileSystemError) -> [UInt8]? in
            if let failure = state.failure { throw failure }
            state.digest.update(data)
            state.offset += UInt64(data.count)
            defer { state.held = data }
            return state.held
        }
        if let released { continuation.yield(released) }
        return false
    }

    func commit(expected: [UInt8], mode: UInt16, modifiedMicros: Int64, replace: Bool) throws(FileSystemError) {
        let last = try state.withLock { (state: inout State) throws(FileSystemError) -> [UInt8]? in
            if let failure = state.failure { throw failure }
            guard state.digest.finish() == expected else {
                let failure = FileSystemError(.integrity, "the received data's digest differs from the host's")
                state.failure = failure
                throw failure
            }
            defer { state.held = nil }
            return state.held
        }
        if let last { continuation.yield(last) }
        continuation.finish()
    }

    func abandon(keep: Bool) {
        fail(FileSystemError(.cancelled, "the download stopped"))
    }

    /// Ends the response unfinished (the page cancelled, or the transfer failed).
    func fail(_ error: FileSystemError) {
        let first = state.withLock { (state: inout State) -> Bool in
            guard state.failure == nil else { return false }
            state.failure = error
            return true
        }
        if first { continuation.finish(throwing: error) }
    }

    /// The response took `count` more bytes: the host hears they arrived.
    func consumed(_ count: Int) {
        let (through, acknowledger) = state.withLock { (state: inout State) -> (UInt64, (@Sendable (UInt64) -> Void)?) in
            state.taken += UInt64(count)
            return (state.taken, state.acknowledger)
        }
        acknowledger?(through)
    }
}
