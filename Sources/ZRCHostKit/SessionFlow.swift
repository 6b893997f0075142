import Foundation
import Logging
import NIOCore
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// An authenticated controller session: registered for listings and revocation, kept alive by
/// keepalives, ended by either side.
struct SessionFlow: Sendable {
    let server: HostServer
    let sessionID: UInt64
    let controllerKey: NoisePublicKey
    let controllerName: String
    let agent: String
    let granted: SessionFlags
    let logger: Logger

    static let agentString = "zrc-host/0.1 (linux)"

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        var logger = logger
        logger[metadataKey: "controller"] = "\(controllerName)"
        logger[metadataKey: "session"] = "\(sessionID)"
        logger.notice("session started (\(TerminalSafeText.sanitized(agent)))")
        let sharing = server.configuration.sharing
        let streamer = StreamerSlot()
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: server.configuration.timings, logger: logger,
            started: { connection in
                guard await server.register(sessionID: sessionID, controllerKey: controllerKey, name: controllerName,
                                            connection: connection, viewOnly: granted.contains(.viewOnly))
                else {
                    await connection.close(reason: .revoked, text: "this controller's access was revoked on the host")
                    return
                }
                let capabilities: Capabilities = sharing == nil ? [] : [.jpegRects, .solidRects]
                try? await connection.send(.hello(protocolVersion: WireLimits.protocolVersion, capabilities: capabilities,
                                                  agent: Self.agentString))
            }
        ) { [logger, granted] message, connection in

            switch message {
            case .hello(_, let capabilities, let agent):
                logger.debug("controller hello: \(TerminalSafeText.sanitized(agent))")
                // Frames go only to controllers that can draw them (`zrc-ctl ping` cannot).
                guard let sharing, capabilities.isSuperset(of: [.jpegRects, .solidRects]) else { return }
                do {
                    await streamer.start(try SessionStreamer(viewer: ScreenViewer(id: sessionID), sharing: sharing, connection: connection,
                                                             logger: logger))
                } catch {
                    logger.error("cannot stream the screen: \(error)")
                    await connection.close(reason: .internalError, text: "the host cannot encode its screen")
                }
            case .frameAck(let frameID, _, _):
                await streamer.acknowledge(frameID)
            case .input(let event):
                guard let input = sharing?.input else {
                    try? await connection.send(.error(code: .unsupported, text: "this host does not accept input"))
                    return
                }
                guard !granted.contains(.viewOnly) else {
                    try? await connection.send(.error(code: .inputRefused, text: "this session is view-only; input is ignored"))
                    return
                }
                do {
                    try await input.inject(event)
                } catch {
                    logger.warning("input not injected: \(error)")
                    try? await connection.send(.error(code: .untypeable, text: "the host could not inject that input: \(error)"))
                }
            case .pong, .stats:
                break
            default:
                try? await connection.send(.error(code: .unsupported, text: "this host does not handle \(message.type) messages"))
            }
        }
        await streamer.stop()
        await sharing?.source.viewerLeft(ScreenViewer(id: sessionID))
        // Only a controlling session can have pressed anything; a watcher leaving must not
        // release the keys the controlling session holds.
        if !granted.contains(.viewOnly) { await sharing?.input?.releaseAll() }
        await server.unregister(sessionID: sessionID)
        logger.notice("session ended: \(end)")
    }
}

/// Holds a session's streamer so the message handler can reach it and the end can stop it.
private actor StreamerSlot {
    private var streamer: SessionStreamer?
    private var task: Task<Void, Never>?

    func start(_ streamer: SessionStreamer) {
        guard self.streamer == nil else { return }  // a repeated hello starts nothing new
        self.streamer = streamer
        task = Task { await streamer.run() }
    }

    func acknowledge(_ frameID: UInt64) async { await streamer?.acknowledge(frameID) }

    /// Cancels the streamer and waits for it, so nothing captures for the session after it ended.
    func stop() async {
        let running = task
        task = nil
        streamer = nil
        running?.cancel()
        await running?.value
    }
}
