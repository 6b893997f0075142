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
