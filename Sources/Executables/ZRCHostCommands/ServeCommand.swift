import ArgumentParser
import Foundation
import ZRCCommandSupport
import ZRCHostKit
import ZRCHostX11
import ZRCNetworking
import ZRCProtocol
import ZRCSodium
import ZRCStorage
import ZRCX11
import Logging

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

    @Flag(help: "Show no session indicator on the shared screen and grab no end-sessions key (host.json: \"indicator\": false).")
    var noIndicator = false

    @Flag(help: "Make each new session wait until the person at the host accepts it in the indicator (host.json: \"approveSessions\": true).")
    var approve = false

    @Flag(help: "Share no clipboard with controllers (host.json: \"clipboard\": false).")
    var noClipboard = false

    @Flag(help: "Move no files to or from controllers (host.json: \"fileTransfer\": \"off\").")
    var noFileTransfer = false

    @Flag(help: "Share a desktop of the host's own: a private Xvfb with ~/.xsession, or openbox and an xterm, in it; stopped with the host. For machines without a screen.")
    var virtual = false

    @Option(help: "The virtual desktop's size, WIDTHxHEIGHT (default 1920x1080; with --virtual).")
    var size: String?

    static let defaultVirtualSize = (width: 1920, height: 1080)

    /// `--size` as width and height: each 64…8192, the area within the protocol's screen limit.
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (64...8192).contains(width), (64...8192).contains(height), width * height <= WireLimits.maxScreenPixels else { return nil }
        return (width, height)
    }

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
        if virtual, display != nil { throw ValidationError("--virtual starts a display of its own; leave out --display") }
        if approve, noIndicator { throw ValidationError("--approve asks in the session indicator; leave out --no-indicator") }
        if let size {
            guard virtual else { throw ValidationError("--size is the size of the --virtual desktop; add --virtual") }
            guard Self.parseSize(size) != nil else {
                throw ValidationError("--size `\(size)` is not WIDTHxHEIGHT with sides 64…8192, e.g. 1920x1080")
            }
        }
    }

    func run() async throws {
        // glibc's allocator is already set for a long-running server (`ZRCHostCommand.main`).
        try await CommandRunner.run(program: "zrc-host") {
            let context = try HostContext.load(options, defaultLogLevel: .info)
            let (identity, crypto) = try context.identity()
            guard let listenAddress = HostPort(parsing: listen ?? context.config.listen, allowingAnyPort: true) else {
                throw CommandError(.storage, "\(context.paths.hostConfigFile.path): field `listen` is not host:port")
            }
            // Signals are caught from here on: one during the desktop's start still tears it down.
            let shutdown = ShutdownRequest()
            let signals = CommandRunner.onTerminationSignal { number in
                context.logger.notice("signal \(number): shutting down")
                shutdown.request()
            }
            defer { signals.forEach { $0.cancel() } }
            let desktop = try await virtualDesktop(context)
            do {
                if !shutdown.isRequested {
                    try await serve(context, identity: identity, crypto: crypto, listenAddress: listenAddress,
                                    displayName: desktop?.displayName ?? display ?? ProcessInfo.processInfo.environment["DISPLAY"],
                                    cookie: desktop?.cookie, shutdown: shutdown)
                }
            } catch {
                await desktop?.stop()
                throw error
            }
            await desktop?.stop()
        }
    }

    /// The virtual desktop, when asked for; this process then connects to it with its cookie.
    private func virtualDesktop(_ context: HostContext) async throws(CommandError) -> VirtualDesktop? {
        guard virtual else { return nil }
        let (width, height) = size.flatMap(Self.parseSize) ?? Self.defaultVirtualSize
        var generator = SystemRandomNumberGenerator()  // getrandom(2): fit for a secret cookie
        let desktop = try await VirtualDesktop(width: width, height: height,
                                               runtime: context.paths.hostControlSocket(keyID: context.keyID).deletingLastPathComponent(),
                                               random: { count in (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) } },
                                               windowManagerReady: { name, cookie in
                                                   (try? X11Connection(displayName: name, cookie: cookie).windowManagerIsRunning()) ?? false
                                               },
                                               logger: context.logger)
        Console.line("zrc-host: virtual desktop \(desktop.displayName) (\(width)x\(height)) running \(desktop.sessionDescription); "
            + "run programs on it with DISPLAY=\(desktop.displayName) XAUTHORITY=\(desktop.authorityFile.path)")
        return desktop
    }

    private func serve(_ context: HostContext, identity: NoiseKeyPair, crypto: SodiumCrypto, listenAddress: HostPort,
                       displayName: String?, cookie: [UInt8]?, shutdown: ShutdownRequest) async throws {
        let config = context.config
        var sharing = try screenSharing(context, displayName: displayName, cookie: cookie)
        let approval = approve || config.approveSessions
        let indicator = try sessionIndicator(context, displayName: displayName, cookie: cookie, sharesScreen: sharing != nil, approval: approval)
        if indicator != nil, let input = sharing?.input {
            // The person at the host's combinations are never pressed by a controller.
            let reserved = (approval ? [config.endSessionsKey, config.acceptSessionKey, config.refuseSessionKey] : [config.endSessionsKey])
                .compactMap { try? KeyCombo(parsing: $0) }
            sharing?.input = ReservedKeyFilter(input, reserved: reserved)
        }
        let clipboard = try clipboardSharing(context, displayName: displayName, cookie: cookie, sharesScreen: sharing != nil)
        await clipboard?.bridge.start()
        var serverConfiguration = HostServerConfiguration(
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
        serverConfiguration.cpace = try SodiumCPaceGroup()
        serverConfiguration.indicator = indicator
        serverConfiguration.approvalTimeout = approval ? .seconds(config.approvalTimeoutSeconds) : nil
        serverConfiguration.files = try FileSharingWiring.sharing(config, turnedOff: noFileTransfer, environment: ProcessInfo.processInfo.environment)
        let server = HostServer(configuration: serverConfiguration, identity: identity, crypto: crypto,
                                controllers: context.controllers, logger: context.logger)
        let serving = Task {
            try await server.run { address in
                Console.line("zrc-host: serving \(server.configuration.hostName) on \(address); host key fingerprint \(server.fingerprint)")
                Console.line("zrc-host: create an invite with `zrc-host pair`; stop with Ctrl-C")
            }
        }
        shutdown.onRequest {
            Task {
                await server.shutdown()
                try? await Task.sleep(for: .milliseconds(200))
                serving.cancel()
            }
        }
        let served = await serving.result
        await clipboard?.bridge.stop()
        switch served {
        case .success, .failure(is CancellationError): return
        case .failure(let error):
            if Task.isCancelled || serving.isCancelled { return }
            throw CommandError(.failure, "cannot serve on \(listenAddress): \(error)")
        }
    }

    /// The display's clipboard, unless turned off (or there is no display).
    private func clipboardSharing(_ context: HostContext, displayName name: String?, cookie: [UInt8]?, sharesScreen: Bool) throws(CommandError)
        -> (bridge: X11ClipboardBridge, sharing: ClipboardSharing)? {
        guard sharesScreen, !noClipboard, context.config.clipboard else { return nil }
        let selections: Set<ClipboardSelection> = context.config.clipboardPrimary ? [.clipboard, .primary] : [.clipboard]
        do {
            let bridge = try X11ClipboardBridge(displayName: name, cookie: cookie, selections: selections, logger: context.logger)
            return (bridge, ClipboardSharing(bridge: bridge, selections: selections, inViewOnlySessions: context.config.clipboardInViewOnly))
        } catch {
            throw CommandError(.failure, "cannot share the clipboard of display \(name ?? "?"): \(error)")
        }
    }

    /// The window that shows who is connected, with the end-sessions key (and the approval keys
    /// when sessions need approval); nil (with a warning when it should have been there) when off
    /// or when the display refuses it. Approval without an indicator is an error: nobody could
    /// accept a session.
    private func sessionIndicator(_ context: HostContext, displayName name: String?, cookie: [UInt8]?, sharesScreen: Bool,
                                  approval: Bool) throws(CommandError) -> X11SessionIndicator? {
        let config = context.config
        guard sharesScreen, !noIndicator, config.indicator else {
            guard !approval else {
                throw CommandError(.failure, "session approval needs the session indicator on a shared screen "
                    + (sharesScreen ? "(drop --no-indicator, or set \"indicator\": true in host.json)" : "(give --display or --virtual)"))
            }
            return nil
        }
        do {
            return try X11SessionIndicator(displayName: name, cookie: cookie, endKey: config.endSessionsKey,
                                           approvalKeys: approval ? .init(accept: config.acceptSessionKey, refuse: config.refuseSessionKey) : nil,
                                           logger: context.logger)
        } catch {
            guard !approval else { throw CommandError(.failure, "session approval needs the session indicator, which display \(name ?? "?") refused: \(error)") }
            context.logger.warning("no session indicator on display \(name ?? "?"): \(error)")
            return nil
        }
    }

    /// The X display's screen, or nil (with a notice) when no display is given at all.
    private func screenSharing(_ context: HostContext, displayName name: String?, cookie: [UInt8]?) throws(CommandError) -> ScreenSharing? {
        guard let name, !name.isEmpty else {
            context.logger.notice("no X display (--display or $DISPLAY): sharing no screen; pairing and pings still work")
            return nil
        }
        do {
            let source = try X11ScreenSource(displayName: name, cookie: cookie, monitor: monitor, logger: context.logger)
            _ = try FrameCodec()  // fail now, not per session, if libjpeg-turbo cannot start
            return ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        } catch {
            throw CommandError(.failure, "cannot share display \(name): \(error)")
        }
    }
}
