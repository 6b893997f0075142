import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCHostX11
import ZRCMemory
import ZRCNetworking
import ZRCProtocol
import ZRCStorage

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Accept pairing and authenticated sessions from controllers.",
        discussion: "Runs until interrupted (Ctrl-C, SIGTERM); live sessions are told the host is shutting down.")

    @OptionGroup var options: HostOptions

    @Option(help: "Address and port to listen on, e.g. 0.0.0.0:7420 or 127.0.0.1:0 (default: host.json, else 0.0.0.0:7420).")
    var listen: String?

    @Option(help: "Name announced to controllers (default: host.json, else this machine's host name).")
    var hostName: String?

    @Option(name: .customLong("advertise"), help: "An address to put into invites (repeatable; default: this machine's addresses).")
    var advertise: [String] = []

    @Option(help: "The X display to share (default: $DISPLAY). Without one the host only pairs and answers pings.")
    var display: String?

    @Option(help: "Share one monitor (RandR name or index, e.g. HDMI-1 or 0) instead of the whole screen.")
    var monitor: String?

    @Option(help: "While one controller is in control, others get: view-only (default) or refuse.")
    var policy: SessionPolicy = .viewOnly

    @Flag(help: "Share no clipboard with controllers (host.json: \"clipboard\": false).")
    var noClipboard = false

    func validate() throws {
        if let listen, HostPort(parsing: listen, allowingAnyPort: true) == nil {
            throw ValidationError("--listen `\(listen)` is not host:port (IPv6 as [addr]:port)")
        }
        if let hostName, let problem = DeviceName.problem(with: hostName) {
            throw ValidationError("--host-name: \(problem)")
        }
        for address in advertise where HostPort(parsing: address, defaultPort: HostPort.defaultPort) == nil {
            throw ValidationError("--advertise `\(address)` is not an address")
        }
    }

    func run() async throws {
        AllocatorTuning.forLongRunningServer()
        try await CommandRunner.run(program: "zrc-host") {
            let context = try HostContext.load(options, defaultLogLevel: .info)
            let (identity, crypto) = try context.identity()
            guard let listenAddress = HostPort(parsing: listen ?? context.config.listen, allowingAnyPort: true) else {
                throw CommandError(.storage, "\(context.paths.hostConfigFile.path): field `listen` is not host:port")
            }
            let config = context.config
            let sharing = try screenSharing(context)
            let clipboard = try clipboardSharing(context, sharesScreen: sharing != nil)
            await clipboard?.bridge.start()
            let serverConfiguration = HostServerConfiguration(
                listen: listenAddress, hostName: hostName ?? context.hostName,
                advertisedAddresses: advertise,
                inviteLifetimeSeconds: config.inviteLifetimeSeconds,
                handshakeTimeout: .seconds(config.handshakeTimeoutSeconds),
                timings: ConnectionTimings(keepaliveInterval: .seconds(config.keepaliveIntervalSeconds),
                                           deadPeerTimeout: .seconds(config.deadPeerTimeoutSeconds)),
                controlSocket: context.paths.hostControlSocket(keyID: context.keyID),
                maximumClockSkew: .seconds(config.maxClockSkewSeconds),
                randomSecret: { crypto.randomSecret(count: $0) },
                sharing: sharing, clipboard: clipboard?.sharing, policy: policy,
                reach: ReachWiring.hostReach(config), lanDiscovery: ReachWiring.hostLanDiscovery(config))
            let server = HostServer(configuration: serverConfiguration, identity: identity, crypto: crypto,
                                    controllers: context.controllers, logger: context.logger)
            let serving = Task {
                try await server.run { address in
                    Console.line("zrc-host: serving \(serverConfiguration.hostName) on \(address); host key fingerprint \(server.fingerprint)")
                    Console.line("zrc-host: create an invite with `zrc-host pair`; stop with Ctrl-C")
                }
            }
            let signals = CommandRunner.onTerminationSignal { number in
                context.logger.notice("signal \(number): shutting down")
                Task {
                    await server.shutdown()
                    try? await Task.sleep(for: .milliseconds(200))
                    serving.cancel()
                }
            }
            defer { signals.forEach { $0.cancel() } }
            let served = await serving.result
            await clipboard?.bridge.stop()
            switch served {
            case .success, .failure(is CancellationError): return
            case .failure(let error):
                if Task.isCancelled || serving.isCancelled { return }
                throw CommandError(.failure, "cannot serve on \(listenAddress): \(error)")
            }
        }
    }

    /// The display's clipboard, unless turned off (or there is no display).
    private func clipboardSharing(_ context: HostContext, sharesScreen: Bool) throws(CommandError)
        -> (bridge: X11ClipboardBridge, sharing: ClipboardSharing)? {
        guard sharesScreen, !noClipboard, context.config.clipboard else { return nil }
        let name = display ?? ProcessInfo.processInfo.environment["DISPLAY"]
        let selections: Set<ClipboardSelection> = context.config.clipboardPrimary ? [.clipboard, .primary] : [.clipboard]
        do {
            let bridge = try X11ClipboardBridge(displayName: name, selections: selections, logger: context.logger)
            return (bridge, ClipboardSharing(bridge: bridge, selections: selections, inViewOnlySessions: context.config.clipboardInViewOnly))
        } catch {
            throw CommandError(.failure, "cannot share the clipboard of display \(name ?? "?"): \(error)")
        }
    }

    /// The X display's screen, or nil (with a notice) when no display is given at all.
    private func screenSharing(_ context: HostContext) throws(CommandError) -> ScreenSharing? {
        let name = display ?? ProcessInfo.processInfo.environment["DISPLAY"]
        guard let name, !name.isEmpty else {
            context.logger.notice("no X display (--display or $DISPLAY): sharing no screen; pairing and pings still work")
            return nil
        }
        do {
            let source = try X11ScreenSource(displayName: name, monitor: monitor, logger: context.logger)
            _ = try FrameCodec()  // fail now, not per session, if libjpeg-turbo cannot start
            return ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        } catch {
            throw CommandError(.failure, "cannot share display \(name): \(error)")
        }
    }
}
