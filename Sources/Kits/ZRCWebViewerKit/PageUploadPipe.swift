import ZRCControllerKit
import ZRCFiles
import ZRCProtocol
import ZRCSodium

/// An upload from the browser: the body of the page's `POST /files/upload/TICKET` flows through
/// here into the file client, which reads it at the pace the host takes it. The HTTP side waits
/// while `maximumBuffered` bytes are waiting (so NIO stops reading the socket and the browser
/// stops sending: nothing is held whole), and the body must be exactly the announced size.
actor PageUploadPipe: UploadSource {
    nonisolated let size: UInt64
    nonisolated let mode: UInt16 = 0o644
    nonisolated let modifiedMicros: Int64
    /// A page never resumes an upload: one it cancels (or a tab that closes) leaves no part.
    nonisolated let keepsPartWhenStopped = false

    /// Bytes the HTTP side may put ahead of the file client.
    static let maximumBuffered = 256 * 1024

    private var buffer: [UInt8] = []
    private var start = 0
    private var received: UInt64 = 0
    private var bodyEnded = false
    private var failure: FileSystemError?
    private var reader: CheckedContinuation<Void, Never>?
    private var writer: CheckedContinuation<Void, Never>?
    private let digest = FileDigest()
    private var outcome: Result<Void, FileTransferError>?
    private var outcomeWaiters: [CheckedContinuation<Result<Void, FileTransferError>, Never>] = []

    init(size: UInt64, modifiedMicros: Int64) {
        self.size = size
        self.modifiedMicros = modifiedMicros
    }

    private var buffered: Int { buffer.count - start }

    // MARK: The HTTP side

    /// The next part of the body; waits while the file client is behind.
    func put(_ bytes: [UInt8]) async throws(FileSystemError) {
        if let failure { throw failure }
        guard UInt64(bytes.count) <= size - received else {
            let error = FileSystemError(.protocolError, "the page sent more than the \(size) bytes it announced")
            fail(error)
            throw error
        }
        received += UInt64(bytes.count)
        buffer += bytes
        wakeReader()
        while buffered > Self.maximumBuffered, failure == nil {
            await withCheckedContinuation { writer = $0 }
        }
        if let failure { throw failure }
    }

    /// The body ended (`complete`: the request ended as HTTP says; false: the connection broke).
    func bodyEnded(complete: Bool) {
        if !complete || received < size {
            fail(FileSystemError(.cancelled, complete ? "the page sent \(received) of the \(size) bytes it announced"
                                                       : "the page stopped sending (cancelled, or the tab closed)"))
            return
        }
        bodyEnded = true
        wakeReader()
    }

    /// Stops the upload (the page's cancel, or the viewer ending): both sides hear `error`.
    func fail(_ error: FileSystemError) {
        guard failure == nil else { return }
        failure = error
        wakeReader()
        writer?.resume()
        writer = nil
    }

    /// How the upload ended, once the file client is done with it.
    func result() async -> Result<Void, FileTransferError> {
        if let outcome { return outcome }
        return await withCheckedContinuation { outcomeWaiters.append($0) }
    }

    func finished(_ result: Result<Void, FileTransferError>) {
        guard outcome == nil else { return }
        outcome = result
        if case .failure(let error) = result { fail(FileSystemError(.cancelled, error.text)) }
        outcomeWaiters.forEach { $0.resume(returning: result) }
        outcomeWaiters = []
    }

    // MARK: The file client's side

    func skip(to offset: UInt64) throws(FileSystemError) -> [UInt8] {
        // Browser uploads never ask to resume, so the host keeps no part for them to match.
        throw FileSystemError(.protocolError, "a browser upload does not resume")
    }

    func read(_ count: Int, inChunksOf chunk: Int) async throws(FileSystemError) -> [[UInt8]] {
        while true {
            if let failure { throw failure }
            if buffered >= count || bodyEnded && buffered > 0 {
                let end = start + min(count, buffered)
                let taken = stride(from: start, to: end, by: chunk).map { Array(buffer[$0..<min(end, $0 + chunk)]) }
                start = end
                if start > Self.maximumBuffered {
                    buffer.removeFirst(start)
                    start = 0
                }
                for piece in taken { digest.update(piece) }
                if buffered <= Self.maximumBuffered / 2 {
                    writer?.resume()
                    writer = nil
                }
                return taken
            }
            if bodyEnded { throw FileSystemError(.protocolError, "the page's upload ended early") }
            await withCheckedContinuation { reader = $0 }
        }
    }

    func finish() throws(FileSystemError) -> [UInt8] {
        if let failure { throw failure }
        return digest.finish()
    }

    func close() {}

    private func wakeReader() {
        reader?.resume()
        reader = nil
    }
}
