internal import CSodium

/// A file's BLAKE2b-256 (libsodium's `crypto_generichash`, 32 bytes), fed in pieces: the digest
/// file transfer checks end to end. One per file, owned by whoever reads or writes it (not
/// `Sendable`: its state is mutable C memory).
public final class FileDigest {
    public static let length = 32
    private let state: UnsafeMutableRawPointer
    private var finished = false

    public init() {
        precondition(SodiumLibrary.isReady, "libsodium could not be initialised")
        // The C state is declared 64-byte aligned; Swift cannot import that struct, so it is opaque.
        state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        let status = crypto_generichash_init(OpaquePointer(state), nil, 0, Self.length)
        precondition(status == 0, "BLAKE2b init failed")
    }

    deinit { state.deallocate() }

    private init(copying other: FileDigest) {
        state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        // The state is plain memory (no pointers inside): a byte copy is an independent digest.
        state.copyMemory(from: other.state, byteCount: crypto_generichash_statebytes())
    }

    /// An independent digest of the bytes so far (a resumed part's digest, while the file's goes on).
    public func copy() -> FileDigest {
        precondition(!finished, "a finished digest cannot be copied")
        return FileDigest(copying: self)
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "a finished digest cannot take more bytes")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        crypto_generichash_update(OpaquePointer(state), base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest; the object takes no more bytes after it.
    public func finish() -> [UInt8] {
        precondition(!finished, "a digest is finished once")
        finished = true
        var output = [UInt8](repeating: 0, count: Self.length)
        let status = output.withUnsafeMutableBufferPointer { crypto_generichash_final(OpaquePointer(state), $0.baseAddress!, Self.length) }
        precondition(status == 0, "BLAKE2b final failed")
        return output
    }

    /// The digest of `bytes` alone.
    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        let digest = FileDigest()
        digest.update(bytes)
        return digest.finish()
    }
}
