public import ZRCFiles
public import ZRCProtocol

/// Where an upload's bytes come from: a local file (`LocalUploadSource`), or the body of a browser
/// page's request (the web viewer's pipe). Read in order, hashed as read; `finish` gives the
/// whole file's BLAKE2b-256 and reports a source that changed meanwhile.
public protocol UploadSource: Sendable {
    var size: UInt64 { get }
    var mode: UInt16 { get }
    var modifiedMicros: Int64 { get }
    /// Skips the first `offset` bytes (hashing them): their digest, to compare with a kept part's.
    func skip(to offset: UInt64) async throws(FileSystemError) -> [UInt8]
    /// The next `count` bytes (fewer only at the end), in pieces of `chunk` bytes (the last one
    /// shorter): each piece is one `fileData`'s data as it is, never cut from a larger copy.
    func read(_ count: Int, inChunksOf chunk: Int) async throws(FileSystemError) -> [[UInt8]]
    /// Everything was read: the whole file's digest.
    func finish() async throws(FileSystemError) -> [UInt8]
    func close() async
    /// Whether the host should keep the part when this source stops partway (a read failed, it
    /// ended early, its user cancelled it): true for a file that a later `--resume` can send
    /// again, false for one that cannot come back (a browser's upload).
    var keepsPartWhenStopped: Bool { get }
}

extension UploadSource {
    public var keepsPartWhenStopped: Bool { true }
}

/// A local file the user named, read by an actor of its own (the file's descriptor and digest are
/// its state).
public actor LocalUploadSource: UploadSource {
    private let source: FileSource
    public nonisolated let size: UInt64
    public nonisolated let mode: UInt16
    public nonisolated let modifiedMicros: Int64

    public init(localPath: String, maxBytes: UInt64) throws(FileSystemError) {
        source = try FileSource(localPath: localPath, maxBytes: maxBytes)
        size = source.size
        mode = source.mode
        modifiedMicros = source.modifiedMicros
    }

    public func skip(to offset: UInt64) throws(FileSystemError) -> [UInt8] { try source.skip(to: offset) }
    public func read(_ count: Int, inChunksOf chunk: Int) throws(FileSystemError) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var left = count
        while left > 0 {
            let piece = try source.read(min(chunk, left))
            guard !piece.isEmpty else { break }
            chunks.append(piece)
            left -= piece.count
        }
        return chunks
    }
    public func finish() throws(FileSystemError) -> [UInt8] { try source.finish() }
    public func close() { source.close() }
}

/// Where a download's bytes go, used only inside the file client: a part file beside the target
/// (`FilePart`), or the browser's own download (the web viewer's stream). Data arrives in order.
public protocol DownloadSink: AnyObject {
    /// Bytes already held (a kept part), where data continues.
    var offset: UInt64 { get }
    /// BLAKE2b-256 of the bytes held (zeros when none).
    var prefixDigest: [UInt8] { get }
    /// Takes the next bytes; returns true when they may be acknowledged at once (false: the sink
    /// acknowledges them itself, through the acknowledger it was given, once they are taken on).
    func take(_ data: [UInt8]) throws(FileSystemError) -> Bool
    /// Every byte arrived: checks `expected` and puts the file in place.
    func commit(expected: [UInt8], mode: UInt16, modifiedMicros: Int64, replace: Bool) throws(FileSystemError)
    /// The transfer failed or was cancelled; `keep`: what arrived may serve a later resume.
    func abandon(keep: Bool)
    /// How the sink acknowledges bytes it took on later (called once, before any data).
    func acknowledge(with acknowledger: @escaping @Sendable (UInt64) -> Void)
}

extension FilePart: DownloadSink {
    public func take(_ data: [UInt8]) throws(FileSystemError) -> Bool {
        try write(data)
        return true
    }

    public func acknowledge(with acknowledger: @escaping @Sendable (UInt64) -> Void) {}
}
