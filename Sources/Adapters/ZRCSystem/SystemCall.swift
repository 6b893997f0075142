import Glibc

/// A failed POSIX call: which call, and errno (after swift-nio's `System.swift`, where every
/// syscall goes through one wrapper that retries EINTR and names the call in its error).
public struct SystemCallError: Error, Equatable, CustomStringConvertible {
    /// The failing call, as a reader of the message recognises it (e.g. "read", "flock(lock file)").
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(SystemCall.describe(errno))" }
}

public enum SystemCall {
    /// The C library's text for `code`, with the number: "No such file or directory (errno 2)".
    public static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// The text for the current errno (read first, before anything can change it).
    public static func describeErrno() -> String { describe(Glibc.errno) }

    /// Runs `body`, a call that returns a negative value and sets errno on failure, again while it
    /// fails with EINTR (a signal arrived; nothing happened); any other failure throws naming `call`.
    @discardableResult
    public static func retrying<T: FixedWidthInteger & SignedInteger>(_ call: @autoclosure () -> String, _ body: () -> T)
        throws(SystemCallError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code != EINTR { throw SystemCallError(call(), errno: code) }
        }
    }
}
