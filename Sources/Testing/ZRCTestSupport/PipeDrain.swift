public import Foundation

/// Reads a child process's pipe to its end with blocking reads on a thread of its own.
///
/// Not `FileHandle.readabilityHandler`: each handler arms a libdispatch read source, and on Linux
/// arming and tearing such sources down on many pipes at once corrupts libdispatch's epoll
/// bookkeeping (swift-corelibs-libdispatch#949, a muxnote freed while still reachable). The test
/// process then crashed in `_dispatch_event_loop_drain` on libdispatch's manager thread, twice in
/// four test runs on one machine. A blocking read never registers the descriptor with
/// libdispatch (SourceKit-LSP reads its children's stderr the same way for the same reason).
public enum PipeDrain {
    /// Reads `handle` on a new thread, calling `received` with each chunk until the pipe ends
    /// (every writer closed it) or a read fails, then `ended` once. The handle stays open until
    /// then. A grandchild that inherited the pipe keeps the thread waiting until it exits.
    public static func start(_ handle: FileHandle, name: String,
                             received: @escaping @Sendable (Data) -> Void, ended: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                received(Data(buffer[0..<count]))
            }
            ended()
        }
        thread.name = name
        thread.start()
    }
}
