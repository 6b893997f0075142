internal import Glibc
import ZRCSystem

/// Turns the current `errno` into text for error messages.
enum SystemError {
    static func text() -> String {
        SystemCall.describeErrno()
    }
}
