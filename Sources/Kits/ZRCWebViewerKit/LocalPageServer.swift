public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization
import ZRCNetworking
import ZRCWebViewer
import ZRCWebPage

/// An answer of the app's API: a status and a JSON body.
public struct PageAPIResponse: Sendable {
    public var status: Int
    public var json: [UInt8]

    public init(status: Int, json: [UInt8]) {
        self.status = status
        self.json = json
    }
}

/// Answers `POST /api/NAME` calls (the path and the JSON body, at most
/// `LocalPageGate.maximumApiBodyBytes`), which passed the gate.
public typealias PageAPIHandler = @Sendable (_ path: String, _ body: [UInt8]) async -> PageAPIResponse

/// The browser viewer's local HTTP and WebSocket server: loopback only, every request through
/// `LocalPageGate`, the page's files from the binary, and each accepted WebSocket handed over as
/// a `PageLink`. `zrc-ctl app` serves its app page at `/` and its API beside.
public final class LocalPageServer: Sendable {
    /// Open connections at most (HTTP and WebSocket together); more are closed at once.
    public static let maximumConnections = 16
    /// An HTTP connection lives this long at most (a page needs a handful of requests).
    static let httpLifetime: Duration = .seconds(30)

    public let port: Int
    let gateBox: GateBox
    private let openConnections = Atomic<Int>(0)
    private let serverChannel: NIOAsyncChannel<Accepted, Never>
    let logger: Logger
    let randomBytes: @Sendable (Int) -> [UInt8]
    /// The file served at `/`: the viewer's page, or the app's.
    private let entry: String
    private let api: PageAPIHandler?
    /// The viewer that answers file tickets now (`routeFiles`).
    let fileRoute = Mutex<(@Sendable () async -> WebViewer?)?>(nil)

    /// A connection and what its first request made of it.
    struct Accepted: Sendable {
        let channel: any Channel
        let negotiation: EventLoopFuture<Negotiated>
    }

    enum Negotiated: Sendable {
        case socket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>)
        case refused
    }

    /// Binds `host` (a loopback address) and `port` (0: any free port). `randomBytes` gives the
    /// token and cookies (a cryptographic source). `app`: serve the app's page at `/` and answer
    /// its API with `app`.
    public static func bind(host: String, port: Int, logger: Logger, randomBytes: @escaping @Sendable (Int) -> [UInt8],
                            app: PageAPIHandler? = nil) async throws -> LocalPageServer {
        let token = randomBytes(16)
        let box = GateBox()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    Accepted(channel: channel, negotiation: try Self.configure(channel, gate: box, logger: logger, randomBytes: randomBytes))
                }
            }
        let boundPort = server.channel.localAddress?.port ?? port
        let gate = LocalPageGate(port: boundPort, token: token, files: Set(PageFiles.all.keys), servesAPI: app != nil)
        box.gate.withLock { $0 = gate }
        return LocalPageServer(port: boundPort, gate: box, channel: server, logger: logger, randomBytes: randomBytes,
                               entry: app == nil ? "/" : PageFiles.appEntry, api: app)
    }

    private init(port: Int, gate: GateBox, channel: NIOAsyncChannel<Accepted, Never>, logger: Logger,
                 randomBytes: @escaping @Sendable (Int) -> [UInt8], entry: String, api: PageAPIHandler?) {
        self.port = port
        self.gateBox = gate
        self.serverChannel = channel
        self.logger = logger
        self.randomBytes = randomBytes
        self.entry = entry
        self.api = api
    }

    /// Sends upload and download tickets to the viewer `route` gives (the viewer of `view --web`,
    /// or the app's current one).
    public func routeFiles(_ route: @escaping @Sendable () async -> WebViewer?) {
        fileRoute.withLock { $0 = route }
    }

    func fileViewer() async -> WebViewer? {
        guard let route = fileRoute.withLock({ $0 }) else { return nil }
        return await route()
    }

    /// The page's address with the token in its fragment.
    public var pageURL: String { gateBox.gate.withLock { $0?.pageURL ?? "" } }

    /// Serves until cancelled; each WebSocket that passed the gate goes to `accept`.
    public func run(accept: @escaping @Sendable (PageLink) async -> Void) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await serverChannel.executeThenClose { inbound in
                for try await accepted in inbound {
                    group.addTask { await self.serve(accepted, accept: accept) }
                }
            }
        }
    }

    /// Stops accepting and closes the listening socket.
    public func close() async {
        try? await serverChannel.channel.close()
    }

    private func serve(_ accepted: Accepted, accept: @Sendable (PageLink) async -> Void) async {
        // Until it is a WebSocket, a connection lives `httpLifetime` at most (one that never
        // finishes its first request included).
        let lifetime = TCPEndpoint.closeAfter(Self.httpLifetime, channel: accepted.channel)
        defer { lifetime.cancel() }
        guard openConnections.wrappingAdd(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
            openConnections.wrappingSubtract(1, ordering: .relaxed)
            logOnce(nil, "more than \(Self.maximumConnections) connections at once: closing the newest")
            try? await accepted.channel.close()
            return
        }
        defer { openConnections.wrappingSubtract(1, ordering: .relaxed) }
        do {
            switch try await accepted.negotiation.get() {
            case .socket(let channel):
                lifetime.cancel()
                await PageLink.run(channel, logger: logger, accept: accept)
            case .http(let channel):
                try await serveHTTP(channel)
            case .refused:
                return
            }
        } catch {
            // A request that is not HTTP fails the negotiation (NIO has answered 400): close.
            logger.debug("page connection ended: \(error)")
            try? await accepted.channel.close()
        }
    }

    private func serveHTTP(_ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>) async throws {
        try await channel.executeThenClose { inbound, outbound in
            do {
                try await serveRequests(inbound, outbound)
            } catch let error as HTTPParserError {
                let tooLarge = error == .headerOverflow
                logOnce(tooLarge ? .headTooLarge : nil, tooLarge ? LocalPageGate.Refusal.headTooLarge.text : "a request that is not HTTP: \(error)")
                try await respond(outbound, status: tooLarge ? 431 : 400, keepAlive: false, head: nil)
            }
        }
    }

    private func serveRequests(_ inbound: NIOAsyncChannelInboundStream<HTTPServerRequestPart>,
                               _ outbound: NIOAsyncChannelOutboundWriter<HTTPPart<HTTPResponseHead, ByteBuffer>>) async throws {
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            var limit = LocalPageGate.maximumBodyBytes
            var upload: PageUploadPipe?
            defer { if let upload { Task { await upload.bodyEnded(complete: false) } } }
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                    body = []
                    let path = PageRequest(received).path
                    limit = gateBox.gate.withLock { $0?.bodyLimit(path: path) } ?? LocalPageGate.maximumBodyBytes
                    if path.hasPrefix(PagePaths.uploadPrefix) {
                        // Decided before the body: it streams into the upload, never kept whole.
                        guard let pipe = try await startUpload(received, outbound: outbound) else { return }
                        upload = pipe
                    }
                case .body(let buffer):
                    if let upload {
                        guard try await streamUpload(buffer, into: upload, outbound: outbound, head: head) else { return }
                        continue
                    }
                    // Checked before it is kept: a body only grows to its path's limit.
                    if body.count + buffer.readableBytes > limit {
                        logOnce(.bodyTooLarge, LocalPageGate.Refusal.bodyTooLarge.text)
                        try await respond(outbound, status: 413, keepAlive: false, head: head)
                        return
                    }
                    body += buffer.readableBytesView
                case .end:
                    if let pipe = upload {
                        upload = nil
                        try await finishUpload(pipe, outbound: outbound, head: head)
                        return
                    }
                    guard let request = head else {
                        // NIO keeps no head of a WebSocket upgrade it was told to refuse (the
                        // gate said why and logged it): the end alone arrives here.
                        try await respond(outbound, status: 403, keepAlive: false, head: nil)
                        return
                    }
                    head = nil
                    let keepAlive = try await answer(request, body: body, outbound: outbound)
                    body = []
                    if !keepAlive { return }
                }
            }
    }

    /// Answers one request; false when the connection should close.
    private func answer(_ head: HTTPRequestHead, body: [UInt8],
                        outbound: NIOAsyncChannelOutboundWriter<HTTPPart<HTTPResponseHead, ByteBuffer>>) async throws -> Bool {
        let request = PageRequest(head)
        let random = randomBytes
        let decision = gateBox.gate.withLock { $0?.decide(request, freshCookie: { random(16) }) } ?? .refuse(status: 503, reason: .notFound)
        switch decision {
        case .file(let path):
            guard let file = PageFiles.all[path == "/" ? entry : path] else {
                try await respond(outbound, status: 404, keepAlive: head.isKeepAlive, head: head)
                return head.isKeepAlive
            }
            try await respond(outbound, status: 200, contentType: file.contentType,
                              body: head.method == .HEAD ? nil : file.bytes, contentLength: file.bytes.count,
                              keepAlive: head.isKeepAlive, head: head)
            return head.isKeepAlive
        case .issueCookie(let setCookie):
            logger.info("the page exchanged its token for a cookie")
            try await respond(outbound, status: 204, extra: [("Set-Cookie", setCookie)], keepAlive: head.isKeepAlive, head: head)
            return head.isKeepAlive
        case .api(let path):
            guard let api else {
                try await respond(outbound, status: 404, keepAlive: false, head: head)
                return false
            }
            let answer = await api(path, body)
            // A connection per call: none outlives `httpLifetime` in the middle of a request.
            try await respond(outbound, status: answer.status, contentType: "application/json", body: answer.json, keepAlive: false, head: head)
            return false
        case .download(let ticket):
            try await serveDownload(ticket, head: head, outbound: outbound)
            return false
        case .upload:
            // Handled at the head (`startUpload`); a body-less repeat lands here.
            try await respond(outbound, status: 400, keepAlive: false, head: head)
            return false
        case .upgrade:
            // Passed the gate but asked for no WebSocket upgrade.
            try await respond(outbound, status: 400, keepAlive: false, head: head)
            return false
        case .refuse(let status, let reason):
            logOnce(reason, "refused \(head.method) \(TerminalSafeTextForLog.clean(request.path)): \(reason.text)")
            try await respond(outbound, status: status, keepAlive: false, head: head)
            return false
        }
    }

    func respond(_ outbound: NIOAsyncChannelOutboundWriter<HTTPPart<HTTPResponseHead, ByteBuffer>>, status: Int,
                         contentType: String? = nil, body: [UInt8]? = nil, contentLength: Int? = nil,
                         extra: [(String, String)] = [], keepAlive: Bool, head: HTTPRequestHead?) async throws {
        var headers = HTTPHeaders(PageSecurityHeaders.all)
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        headers.add(name: "Content-Length", value: "\(contentLength ?? body?.count ?? 0)")
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let response = HTTPResponseHead(version: head?.version ?? .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        try await outbound.write(.head(response))
        if let body { try await outbound.write(.body(ByteBuffer(bytes: body))) }
        try await outbound.write(.end(nil))
    }

    func logOnce(_ reason: LocalPageGate.Refusal?, _ text: String) {
        gateBox.logOnce(reason, text, logger: logger)
    }

    /// The pipeline: HTTP with small limits; the WebSocket upgrade only when the gate says so.
    private static func configure(_ channel: any Channel, gate: GateBox, logger: Logger,
                                  randomBytes: @escaping @Sendable (Int) -> [UInt8]) throws -> EventLoopFuture<Negotiated> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
            maxFrameSize: PageMessage.maximumBytes,
            shouldUpgrade: { channel, head in
                let decision = gate.gate.withLock { $0?.decide(PageRequest(head), freshCookie: { randomBytes(16) }) }
                guard case .upgrade? = decision else {
                    // Not upgraded: the HTTP side answers 403.
                    if case .refuse(_, let reason)? = decision {
                        gate.logOnce(reason, "refused a WebSocket: \(reason.text)", logger: logger)
                    }
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders(PageSecurityHeaders.all))
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: PageMessage.maximumBytes))
                    return Negotiated.socket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                }
            })
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: NIOTypedHTTPServerUpgradeConfiguration(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResponsePartAdapter())
                    return Negotiated.http(try NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>(
                        wrappingChannelSynchronously: channel))
                }
            }))
        configuration.decoderConfiguration.maxHeaderListSize = LocalPageGate.maximumHeadBytes
        configuration.decoderConfiguration.maxHeaderFieldSize = LocalPageGate.maximumHeadBytes
        configuration.decoderConfiguration.maxHeaderFieldCount = LocalPageGate.maximumHeaderCount
        let negotiation = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        try channel.pipeline.syncOperations.addHandler(CloseOnError())
        return negotiation
    }
}
