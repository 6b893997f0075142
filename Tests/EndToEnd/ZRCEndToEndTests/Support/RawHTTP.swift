import Foundation

/// A hand-written HTTP/1.1 exchange with the browser viewer's server: what a hostile page, a
/// DNS-rebinding attacker or another local user can send, byte for byte. Runs on a thread of its
/// own (blocking socket calls must not hold Swift's cooperative pool).
enum RawHTTP {
    struct Response {
        let status: Int
        let head: String
        let body: String
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.drop(while: { $0 != ":" }).dropFirst()).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Sends `request` (CRLF line ends added) to 127.0.0.1:`port` and reads the answer until the
    /// server closes (the server closes after every refusal; requests here say `Connection: close`).
    /// `timeoutClose`: the answer keeps the connection open (a WebSocket): read only its head.
    static func exchange(port: Int, _ lines: [String], body: String = "", timeoutClose: Bool = false) async throws -> Response {
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n" + body
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try exchangeBlocking(port: port, bytes: Array(request.utf8), headOnly: timeoutClose) })
            }.start()
        }
    }

    private static func exchangeBlocking(port: Int, bytes: [UInt8], headOnly: Bool) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SetupError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SetupError("connect() to port \(port) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < 4 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            if headOnly, String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return Response(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
