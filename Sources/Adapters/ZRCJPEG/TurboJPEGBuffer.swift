internal import CTurboJPEG

/// A `tjAlloc`ed output buffer that the encoder reuses across calls and frees with `tjFree`.
///
/// Not Sendable: it is the encoder's scratch space, mutated by every encode.
final class TurboJPEGBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>?
    private(set) var capacity: Int = 0

    init() {}

    deinit {
        // tjFree(NULL) is a no-op, so an encoder that never encoded is fine too.
        tjFree(pointer)
    }

    /// Makes room for at least `byteCount` bytes, discarding the old contents.
    func reserve(_ byteCount: Int) throws(JPEGError) {
        if byteCount <= capacity { return }
        guard let size = Int32(exactly: byteCount), let fresh = tjAlloc(size) else {
            throw JPEGError(.libraryFailure, "cannot allocate \(byteCount) bytes for the JPEG output buffer")
        }
        tjFree(pointer)
        pointer = fresh
        capacity = byteCount
    }
}
