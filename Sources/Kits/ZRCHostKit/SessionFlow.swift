import Foundation
import Logging
import NIOCore
import ZRCFrames
import ZRCHostCore
import ZRCNetworking
import ZRCProtocol
import ZRCStorage

/// An authenticated controller session: what the host does around its `HostSessionMachine` —
/// listing and control on the server, the trust store's "last seen", input and clipboard — while
/// its `SessionDriver` runs the machine.
struct SessionFlow: Sendable {
    let server: HostServer
    let sessionID: UInt64
    let controllerKey: NoisePublicKey
    let controllerName: String
    let agent: String
    let granted: SessionFlags
    /// Where the session came from; once it is real, that address may use the reserved slots.
    let source: AdmissionSource
    let logger: Logger
    /// The path as the session's schedule last measured it, for `zrc-host sessions`.
    let link = SessionLink()

    static let agentString = "zrc-host/0.1 (linux)"

    /// What this host announces: every rect encoding and the cursor when it shares a screen,
    /// text input when it accepts input, the clipboard when it shares one.
    var hostCapabilities: Capabilities {
        let clipboard: Capabilities = (server.configuration.clipboard == nil ? Capabilities() : .clipboard)
            .union(server.configuration.files == nil ? Capabilities() : .fileTransfer)
        guard let sharing = server.configuration.sharing else { return clipboard }
        let screen: Capabilities = [.jpegRects, .solidRects, .rawRects, .losslessRects, .copyRects, .losslessFrames, .cursorShape, .scaledPictures,
                                    .linkStats, .monitors, .compactFrames, .sharedLosslessStream]
        return (sharing.input == nil ? screen : screen.union([.textInput, .extendedButtons])).union(clipboard)
    }

    /// What this host lets the session do, for its machine.
    var policy: HostSessionMachine.Policy {
        let configuration = server.configuration
        return HostSessionMachine.Policy(
            helloTimeoutMicros: ConnectionTimings.micros(configuration.handshakeTimeout),
            viewOnlyGrant: granted.contains(.viewOnly), acceptsInput: configuration.sharing?.input != nil,
            clipboard: configuration.clipboard.map { .init(selections: $0.selections, inViewOnlySessions: $0.inViewOnlySessions) },
            approvalTimeoutMicros: configuration.indicator == nil ? nil : configuration.approvalTimeout.map(ConnectionTimings.micros),
            files: configuration.files.map { FileTransferDesk.Policy(terms: $0.terms) })
    }

    var input: (any InputSink)? { server.configuration.sharing?.input }

    var clipboard: ClipboardSharing? { server.configuration.clipboard }

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        var logger = logger
        logger[metadataKey: "controller"] = "\(controllerName)"
        logger[metadataKey: "session"] = "\(sessionID)"
        let driver = SessionDriver(flow: self, policy: policy, logger: logger)
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: server.configuration.timings, logger: logger,
            started: { connection in
                try? await connection.send(.hello(protocolVersion: WireLimits.protocolVersion, capabilities: hostCapabilities,
                                                  agent: Self.agentString))
                await driver.start(connection)
            }
        ) { message, _ in
            await driver.received(message)
        }
        await driver.stop()
        await server.configuration.sharing?.source.viewerLeft(ScreenViewer(id: sessionID))
        // Only the controlling session can have pressed anything; a watcher leaving must not
        // release the keys the controlling session holds.
        if await driver.hasControl { await input?.releaseAll() }
        await server.closeSession(sessionID, controller: controllerKey)
        logger.notice("session ended: \(end)")
    }

    enum ControlClaim {
        /// The grant is view-only: nothing to claim.
        case notClaimed
        case granted
        /// Another controller's hello came first; `demote`: the session stays as a watcher.
        case taken(demote: Bool)
    }

    func claimControl(viewOnlyGrant: Bool) async -> ControlClaim {
        guard !viewOnlyGrant else { return .notClaimed }
        if await server.claimControl(session: sessionID, controller: controllerKey) { return .granted }
        switch server.configuration.policy {
        case .refuse: return .taken(demote: false)
        case .viewOnly: return .taken(demote: true)
        }
    }

    enum Establishment {
        case refused(CloseReason, String)
        /// Listed; with the screen's streamer when frames go to this controller.
        case established(ScreenStreamer?)
    }

    /// The session becomes real: listed, its source trusted with reserved slots, its relay
    /// credentials renewed, marked seen, and streamed to if both sides can draw frames.
    func establish(connection: SecureConnection, capabilities: Capabilities, agent: String, viewOnly: Bool, mayUseClipboard: Bool,
                   isolation: isolated (any Actor)? = #isolation) async -> Establishment {
        guard await server.register(sessionID: sessionID, controllerKey: controllerKey, name: controllerName,
                                    connection: connection, link: link, viewOnly: viewOnly,
                                    receivesClipboard: mayUseClipboard && capabilities.contains(.clipboard))
        else {
            return .refused(.revoked, "this controller's access was revoked on the host")
        }
        logger.notice("session started (\(agent))")
        await server.sourceAuthenticated(source)
        // A day's credentials for the host's relays, renewed at every session.
        if let credentials = server.configuration.reach?.relayCredentials(controllerKey), !credentials.isEmpty {
            try? await connection.send(.relayCredentials(credentials))
        }
        do {
            try await server.controllers.markSeen(publicKey: controllerKey, at: Date())
        } catch {
            logger.warning("could not record when \(controllerName) was last seen: \(error)")
        }
        // Frames go only to controllers that can draw them, in what both sides announced
        // (`zrc-ctl ping` announces no rect encoding and gets none).
        let shared = capabilities.intersection(hostCapabilities)
        guard let sharing = server.configuration.sharing, !shared.intersection(Capabilities.rectEncodings).isEmpty else { return .established(nil) }
        guard !shared.isDisjoint(with: Capabilities.pictureEncodings) else {
            // Solid or copy rects alone cannot show a screen: say so rather than stay silent.
            try? await connection.send(.error(code: .unsupported,
                                              text: "this host sends the screen as JPEG, lossless or raw rectangles; this controller takes none of them"))
            return .established(nil)
        }
        do {
            return .established(try ScreenStreamer(viewer: ScreenViewer(id: sessionID), sharing: sharing, capabilities: shared,
                                                   connection: connection, logger: logger))
        } catch {
            logger.error("cannot stream the screen: \(error)")
            return .refused(.internalError, "the host cannot encode its screen")
        }
    }

    func clipboardChanged(_ content: ClipboardContent) async {
        await server.clipboardChanged(content, source: sessionID)
    }
}
