import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCProtocol
import ZRCSodium
import ZRCStorage

extension ZRCController {
    /// A controller as `zrc-ctl` makes one (libjpeg-turbo decoding every frame), with a throwaway
    /// identity unless one is given and its known hosts in `knownHosts`.
    /// With `skipDecode`, JPEG rectangles are not decoded (a view-only audience for measuring the
    /// host's CPU without these processes taking the machine's cores).
    static func bench(named name: String = "bench", identity: NoiseKeyPair? = nil, crypto: SodiumCrypto, knownHosts: URL,
                      skipDecode: Bool = false, reach: ControllerReach = ControllerReach(), logger: Logger) throws -> ZRCController {
        let decoders = try FrameCodec.decoderFactory()
        let makeDecoder: @Sendable () -> any RegionDecoder
        if skipDecode {
            makeDecoder = { () -> any RegionDecoder in JPEGSkippingDecoder(base: decoders()) }
        } else {
            makeDecoder = decoders
        }
        var configuration = ControllerConfiguration(makeDecoder: makeDecoder, reach: reach)
        configuration.wantsFiles = true  // `files` and `files-lab` transfer; hosts without files ignore it
        return ZRCController(identity: identity ?? crypto.generateKeyPair(), crypto: crypto, knownHosts: KnownHostsStore(file: knownHosts),
                             controllerName: name, configuration: configuration, logger: logger)
    }
}

extension ControllerSession {
    /// A bench controller's session: a throwaway identity whose known hosts live in `directory`,
    /// paired with `invite` as "bench" and connected (the sink and the laboratory's controller).
    static func bench(invite: String, directory: String, label: String, skipDecode: Bool = false) async throws -> ControllerSession {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let controller = try ZRCController.bench(crypto: try SodiumCrypto(),
                                                 knownHosts: URL(fileURLWithPath: directory).appendingPathComponent("known-hosts.json"),
                                                 skipDecode: skipDecode, logger: logger)
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


/// Decodes lossless rectangles (their stream must be followed) but skips JPEG ones.
struct JPEGSkippingDecoder: RegionDecoder {
    var base: any RegionDecoder

    func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws {}

    mutating func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        try base.decompressLossless(chunk, maximumSize: maximumSize)
    }

    mutating func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] {
        try base.decompressLosslessFrame(frame, maximumSize: maximumSize)
    }

    mutating func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        try base.restartLossless(chunk, maximumSize: maximumSize)
    }
}
