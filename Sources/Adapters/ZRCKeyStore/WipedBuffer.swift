#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A heap buffer for key text that is zeroed with `explicit_bzero` when wiped or released.
final class WipedBuffer {
    let storage: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(capacity: Int) {
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
    }

    deinit {
        wipe()
        storage.deallocate()
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[0..<count]) }

    func wipe() {
        explicit_bzero(storage.baseAddress!, storage.count)
        count = 0
    }
}
