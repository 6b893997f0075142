#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SecretBytes {
    /// The first `length` bytes as a new secret: HKDF outputs are HASHLEN (64) bytes, and Noise
    /// truncates them to 32 where they become a cipher key.
    func prefix(_ length: Int) -> SecretBytes {
        precondition(length <= count, "prefix longer than the secret")
        return withUnsafeBytes { source in
            SecretBytes(count: length) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(length))) }
        }
    }
}

/// Clears a temporary buffer that held key material, with a store the optimizer keeps
/// (the same libc call `SecretBytes` uses).
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    #if canImport(Glibc)
    explicit_bzero(base, buffer.count)
    #else
    memset_s(base, buffer.count, 0, buffer.count)
    #endif
}
