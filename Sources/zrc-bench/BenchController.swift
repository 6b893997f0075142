import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage

extension ZRCController {
    /// A controller as `zrc-ctl` makes one (libjpeg-turbo decoding every frame), with a throwaway
    /// identity unless one is given and its known hosts in `knownHosts`.
    static func bench(named name: String = "bench", identity: NoiseKeyPair? = nil, crypto: SodiumCrypto, knownHosts: URL,
                      logger: Logger) throws -> ZRCController {
        ZRCController(identity: identity ?? crypto.generateKeyPair(), crypto: crypto, knownHosts: KnownHostsStore(file: knownHosts),
                      controllerName: name, configuration: ControllerConfiguration(makeDecoder: try FrameCodec.decoderFactory()),
                      logger: logger)
    }
}

extension ControllerSession {
    /// A bench controller's session: a throwaway identity whose known hosts live in `directory`,
    /// paired with `invite` as "bench" and connected (the sink and the laboratory's controller).
    static func bench(invite: String, directory: String, label: String) async throws -> ControllerSession {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let controller = try ZRCController.bench(crypto: try SodiumCrypto(),
                                                 knownHosts: URL(fileURLWithPath: directory).appendingPathComponent("known-hosts.json"),
                                                 logger: logger)
        _ = try await controller.pair(inviteText: invite, name: "bench")
        return try await controller.connect(to: "bench")
    }
}

/// The lines of standard input, read on a thread of its own: a blocking read must not hold one of
/// Swift's cooperative threads, which a host or session in the same process needs.
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        let (lines, sink) = AsyncStream<String>.makeStream()
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) { sink.yield(line) }
            sink.finish()
        }
        return lines
    }
}

