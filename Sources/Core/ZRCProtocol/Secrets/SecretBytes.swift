#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Key material that wipes itself when the last reference goes away.
///
/// Keys never travel as bare `[UInt8]`: an array can be copied anywhere and outlive its use. This
/// type owns one heap buffer, hands out scoped read access, and clears the buffer with a store the
/// optimizer may not remove (`explicit_bzero` — the platform libc, not a C library dependency).
/// Its `description` never shows the bytes, so a key cannot end up in a log line or error message.
public struct SecretBytes: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let storage: Storage

    /// Copies `bytes` into wiped-on-release storage. The caller should clear its own copy.
    public init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        storage = Storage(count: bytes.count)
        storage.pointer.copyBytes(from: bytes)
    }

    /// Fills `count` bytes through `initializer`, e.g. straight from a random number generator,
    /// so the secret never exists in an ordinary array.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = Storage(count: count)
        try initializer(storage.pointer)
    }

    public static func zeros(count: Int) -> SecretBytes {
        SecretBytes(count: count) { $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    public var count: Int { storage.pointer.count }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(storage.pointer))
    }

    /// Constant-time comparison, so equality checks on keys leak no timing.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage.pointer[index] ^ other.storage.pointer[index] }
        return difference == 0
    }

    /// Escape hatch for the few places that must hand bytes to a non-secret container (e.g. the
    /// keyring's text encoding). The result is the caller's to clear.
    public func copyBytes() -> [UInt8] { Array(storage.pointer) }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }

    /// Sendable: the buffer is written only during `init`, before the value is shared, and is
    /// read-only afterwards; `deinit` runs once nothing else can reach it.
    private final class Storage: @unchecked Sendable {
        let pointer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 0), alignment: 16)
            pointer.initializeMemory(as: UInt8.self, repeating: 0)
        }

        deinit {
            if let base = pointer.baseAddress { explicit_bzero(base, pointer.count) }
            pointer.deallocate()
        }
    }
}
