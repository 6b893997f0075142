internal import CZlib

/// One zlib inflate stream that lives as long as a connection, the way RFB's Tight and ZRLE
/// encodings use zlib: the server compresses every rectangle into the same stream and flushes, so
/// each chunk decodes completely on its own given everything before it.
///
/// Used by the benchmark's RFB client (the VNC servers ZRC is compared with), never by ZRC's sessions,
/// which uses zstd. Not Sendable: one per stream, used by one reader thread.
public final class ZlibInflater {
    /// Heap-allocated: zlib keeps a pointer back to the stream and checks it on every call.
    private let stream: UnsafeMutablePointer<z_stream>
    private var scratch: [UInt8] = []

    public init() throws(ZlibError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let result = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZlibError("zlib could not start an inflate stream (\(result))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decodes one chunk completely. Throws if the chunk is damaged or would yield more than
    /// `maximumSize` bytes (what the rectangle it belongs to can hold), so a server cannot make
    /// the client allocate without bound.
    public func inflate(_ chunk: [UInt8], maximumSize: Int) throws(ZlibError) -> [UInt8] {
        if scratch.count < maximumSize { scratch = [UInt8](repeating: 0, count: maximumSize) }
        var produced = 0
        let failure: ZlibError? = chunk.withUnsafeBytes { input in
            scratch.withUnsafeMutableBytes { output in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = output.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.avail_out = uInt(maximumSize)
                // Each call consumes input or fills output, both bounded: the loop ends.
                while stream.pointee.avail_in > 0 {
                    let before = (stream.pointee.avail_in, stream.pointee.avail_out)
                    let result = CZlib.inflate(stream, Z_SYNC_FLUSH)
                    if result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR {
                        return ZlibError("a zlib chunk does not decode (\(result))")
                    }
                    if stream.pointee.avail_out == 0 && stream.pointee.avail_in > 0 {
                        return ZlibError("a zlib chunk decodes to more than the \(maximumSize) bytes its rectangle allows")
                    }
                    if (stream.pointee.avail_in, stream.pointee.avail_out) == before { return ZlibError("a zlib chunk stopped decoding midway") }
                }
                produced = maximumSize - Int(stream.pointee.avail_out)
                return nil
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if let failure { throw failure }
        return Array(scratch[0..<produced])
    }

    /// Starts the stream afresh (Tight's "reset stream" bits).
    public func reset() { inflateReset(stream) }
}

public struct ZlibError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
