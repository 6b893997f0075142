import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import ZRCWebViewer

extension PageRequest {
    init(_ head: HTTPRequestHead) {
        self.init(method: head.method.rawValue, target: head.uri, headers: head.headers.map { (name: $0.name, value: $0.value) })
    }
}

/// Closes the connection on a parse error: NIO answers a request it cannot parse with 400 but
/// left the connection open (holding one of the few slots). Other errors pass on.
final class CloseOnError: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        context.close(promise: nil)
    }
}

/// The gate, shared by the event loops (the upgrade check) and the HTTP side; set once the port
/// is known, right after binding.
final class GateBox: Sendable {
    let gate = Mutex<LocalPageGate?>(nil)
    private let refusalsLogged = Mutex<Set<LocalPageGate.Refusal>>([])

    /// Logs each kind of refusal once (a page hammering the server must not flood the log).
    func logOnce(_ reason: LocalPageGate.Refusal?, _ text: String, logger: Logger) {
        let first = refusalsLogged.withLock { logged in
            guard let reason else { return true }
            return logged.insert(reason).inserted
        }
        if first { logger.notice("browser viewer: \(text)") }
    }
}

/// Printable, bounded request paths for the log (a path is the requester's text).
enum TerminalSafeTextForLog {
    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.prefix(80).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
