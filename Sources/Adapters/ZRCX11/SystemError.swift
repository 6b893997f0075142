internal import Glibc

/// Turns the current `errno` into text for error messages.
enum SystemError {
    static func text() -> String {
        let code = errno
        return "\(String(cString: strerror(code))) (errno \(code))"
    }
}
