internal import Glibc

/// Reads environment variables without Foundation.
enum ProcessEnvironment {
    static func value(of name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }
}
