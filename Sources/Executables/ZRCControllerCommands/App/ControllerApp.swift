import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCStorage
import ZRCViewerKit
import ZRCWebViewer
import ZRCWebViewerKit

/// `zrc-ctl app`'s side of the page: the API behind its screens (devices with presence, rename,
/// forget, LAN, pairing, settings) and the viewer it opens in the same page. The page is local
/// but no more trusted than any tab: every request is checked like a peer's (names by
/// `DeviceName`, codes and invites by their parsers, settings by `ControllerConfig`'s decoder).
actor ControllerApp {
    var context: ControllerContext
    let logger: Logger
    /// The controllers, made once per settings (the keyring is read once for them).
    private var controllers: (plain: ZRCController, screen: ZRCController)?
    /// The viewer the page shows, if any.
    private var viewing: (name: String, viewer: WebViewer)?
    /// The pairing under way (one at a time: a new one replaces it).
    var pairing: AppPairingJob?
    private var nextJob = 1
    /// When a page last asked anything (the app ends after `idleLimit` without one).
    private(set) var lastRequest = ContinuousClock.now
    static let idleLimit: Duration = .seconds(600)

    init(context: ControllerContext) {
        self.context = context
        logger = context.logger
    }

    /// The controller for presence and pairing (no screen), and the viewer's.
    func controller(showingScreen: Bool) throws(AppAPI.Failure) -> ZRCController {
        let made: (plain: ZRCController, screen: ZRCController)
        if let controllers {
            made = controllers
        } else {
            do {
                made = (try context.controller(),
                        try context.controller(showsScreen: true, wantsClipboard: context.config.clipboard, viewerAcknowledges: true, wantsFiles: true))
            } catch {
                throw AppAPI.Failure(500, error.message)
            }
            controllers = made
        }
        return showingScreen ? made.screen : made.plain
    }

    /// Settings changed: controllers are made again with them.
    func settingsChanged(_ config: ControllerConfig) {
        context.config = config
        controllers = nil
    }

    func makeJobID() -> Int {
        defer { nextJob += 1 }
        return nextJob
    }

    // MARK: Requests

    func handle(path: String, body: [UInt8]) async -> PageAPIResponse {
        lastRequest = ContinuousClock.now
        do {
            switch path {
            case "/api/alive": return AppAPI.answer(AppAPI.Empty())
            case "/api/devices": return AppAPI.answer(try await devices())
            case "/api/presence": return AppAPI.answer(try await presence())
            case "/api/rename": return AppAPI.answer(try await rename(AppAPI.decode(RenameRequest.self, from: body)))
            case "/api/forget": return AppAPI.answer(try await forget(AppAPI.decode(NameRequest.self, from: body)))
            case "/api/lan": return AppAPI.answer(try await lan())
            case "/api/pair/start": return AppAPI.answer(try startPairing(AppAPI.decode(PairStartRequest.self, from: body)))
            case "/api/pair/status": return AppAPI.answer(try pairingStatus(AppAPI.decode(JobRequest.self, from: body)))
            case "/api/pair/confirm": return AppAPI.answer(try await confirmPairing(AppAPI.decode(PairConfirmRequest.self, from: body)))
            case "/api/pair/cancel": return AppAPI.answer(try cancelPairing(AppAPI.decode(JobRequest.self, from: body)))
            case "/api/settings/get": return AppAPI.answer(try settings())
            case "/api/settings/set": return AppAPI.answer(try saveSettings(body))
            case "/api/view": return AppAPI.answer(try await view(AppAPI.decode(ViewRequest.self, from: body)))
            case "/api/view/stop": return AppAPI.answer(await stopViewing())
            default: throw AppAPI.Failure(404, "no such call")
            }
        } catch {
            return AppAPI.failure(error as? AppAPI.Failure ?? AppAPI.Failure(500, "\(error)"))
        }
    }

    struct NameRequest: Decodable { let name: String }
    struct RenameRequest: Decodable { let name: String; let newName: String }
    struct JobRequest: Decodable { let job: Int }
    struct ViewRequest: Decodable { let name: String; let viewOnly: Bool? }

    // MARK: The viewer

    /// A page's WebSocket: the viewer open now takes it.
    func adopt(_ link: PageLink) async {
        guard let viewer = viewing?.viewer else {
            link.close()
            return
        }
        await viewer.adopt(link)
    }

    private func view(_ request: ViewRequest) async throws(AppAPI.Failure) -> AppAPI.Empty {
        let host = try await knownHost(request.name)
        _ = await stopViewing()
        let controller = try controller(showingScreen: true)
        let name = host.name
        let clipboard = context.config.clipboard
        let viewer = WebViewer(configuration: WebViewerConfiguration(hostName: name, viewOnly: request.viewOnly ?? false, clipboard: clipboard,
                                                                     clipboardFromHost: clipboard && context.config.clipboardFromHost),
                               openSession: { viewOnly async throws(ControllerError) in try await controller.connect(to: name, viewOnly: viewOnly) },
                               logger: logger)
        viewing = (name, viewer)
        Task {
            let exit = await viewer.runSession()
            self.viewerEnded(viewer, exit: exit)
        }
        return AppAPI.Empty()
    }

    private func viewerEnded(_ viewer: WebViewer, exit: ViewerExit) {
        logger.info("the viewer of \(viewing?.name ?? "a host") ended: \(exit)")
        if viewing?.viewer === viewer { viewing = nil }
    }

    var viewingName: String? { viewing?.name }

    /// The viewer open now (its file tickets are the page's).
    func currentViewer() -> WebViewer? { viewing?.viewer }

    func stopViewing() async -> AppAPI.Empty {
        if let viewer = viewing?.viewer {
            viewing = nil
            await viewer.stop(.detached)
        }
        return AppAPI.Empty()
    }

    func knownHost(_ name: String) async throws(AppAPI.Failure) -> KnownHost {
        do {
            return try await context.knownHosts.host(named: name)
        } catch {
            throw AppAPI.Failure(404, error.description, field: "name")
        }
    }
}
