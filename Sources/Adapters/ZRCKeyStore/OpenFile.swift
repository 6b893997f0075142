#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ZRCSystem

/// One open file descriptor of `FileKeyStore`, closed exactly once.
final class OpenFile {
    let descriptor: Int32
    let path: String
    private var isOpen = true

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close() }

    func close() {
        guard isOpen else { return }
        isOpen = false
        closeDescriptor(descriptor)
    }

    func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) throws(KeyStoreError) {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try SystemCall.retrying("write") { write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
            } catch {
                throw FileSystem.failure("write", path, code: error.errno)
            }
        }
    }

    /// Reads the whole file after checking that it is a regular file owned by this user with no
    /// group or other permissions. The contents land in a buffer the caller wipes.
    func readPrivateFile(maximumSize: Int) throws(KeyStoreError) -> WipedBuffer {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystem.failure("fstat", path) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw KeyStoreError(.corrupt, "The key file \(path) is not a regular file.")
        }
        try FileSystem.requireOwnedByUs(path, status: status)
        guard status.st_mode & 0o077 == 0 else {
            throw KeyStoreError(
                .insecurePermissions,
                "The key file \(path) can be accessed by other users (mode \(FileSystem.octal(status.st_mode))); "
                    + "refusing to read it. Treat the key as exposed if others could read it; fix: chmod 600 '\(path)'")
        }
        let buffer = WipedBuffer(capacity: maximumSize + 1)
        while true {
            guard buffer.count <= maximumSize else {
                buffer.wipe()
                throw KeyStoreError(
                    .corrupt, "The key file \(path) is larger than \(maximumSize) bytes, so it is not a key file.")
            }
            let count: Int
            do {
                count = try SystemCall.retrying("read") { read(descriptor, buffer.storage.baseAddress! + buffer.count, buffer.storage.count - buffer.count) }
            } catch {
                buffer.wipe()
                throw FileSystem.failure("read", path, code: error.errno)
            }
            if count == 0 { return buffer }
            buffer.count += count
        }
    }
}

/// The libc `close`, which `OpenFile.close()` shadows inside the class.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
