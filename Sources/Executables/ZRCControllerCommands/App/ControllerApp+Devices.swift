import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCReach
import ZRCStorage

/// The Devices and LAN screens: the paired hosts, which answer now, rename, forget, and the
/// hosts announcing themselves on the LAN.
extension ControllerApp {
    struct Device: Encodable {
        let name, hostName, fingerprint: String
        let addresses: [String]
        let pairedAt: Date
        let lastSeen: Date?
        let lastPath: String?
    }

    struct Devices: Encodable { let devices: [Device] }

    func devices() async throws(AppAPI.Failure) -> Devices {
        let crypto = try Self.crypto()
        let known: [KnownHost]
        do {
            known = try await context.knownHosts.all()
        } catch {
            throw AppAPI.Failure(500, error.description)
        }
        return Devices(devices: known.map {
            Device(name: $0.name, hostName: TerminalSafeText.sanitized($0.hostName), fingerprint: KeyDerivations.fingerprint(of: $0.publicKey, crypto: crypto),
                   addresses: $0.addresses, pairedAt: $0.pairedAt, lastSeen: $0.lastSeen, lastPath: $0.lastPath?.rawValue)
        })
    }

    struct Presence: Encodable {
        let name: String
        let online: Bool
        let path: String?
        let roundTripMs: Double?
        let reason: String?
    }

    struct PresenceList: Encodable { let devices: [Presence] }

    /// Every paired host probed at once, answered within 2 s (as `devices --online`).
    func presence() async throws(AppAPI.Failure) -> PresenceList {
        let controller = try controller(showingScreen: false)
        let found: [HostPresence]
        do {
            found = try await controller.presence(within: .seconds(2))
        } catch {
            throw AppAPI.Failure(500, error.message)
        }
        return PresenceList(devices: found.map { presence in
            switch presence.state {
            case .online(let path, let roundTrip):
                Presence(name: presence.name, online: true, path: path.description, roundTripMs: OnlineDevices.milliseconds(roundTrip), reason: nil)
            case .offline(let reason):
                Presence(name: presence.name, online: false, path: nil, roundTripMs: nil, reason: TerminalSafeText.sanitized(reason))
            }
        })
    }

    func rename(_ request: RenameRequest) async throws(AppAPI.Failure) -> AppAPI.Empty {
        if let problem = DeviceName.problem(with: request.newName) { throw AppAPI.Failure(400, problem, field: "newName") }
        do {
            try await context.knownHosts.rename(named: request.name, to: request.newName)
        } catch {
            throw AppAPI.Failure(error.kind == .notFound ? 404 : 400, error.reason, field: error.kind == .notFound ? "name" : "newName")
        }
        if viewingName == request.name { _ = await stopViewing() }
        return AppAPI.Empty()
    }

    func forget(_ request: NameRequest) async throws(AppAPI.Failure) -> AppAPI.Empty {
        if viewingName == request.name { _ = await stopViewing() }
        do {
            _ = try await context.knownHosts.remove(named: request.name)
        } catch {
            throw AppAPI.Failure(error.kind == .notFound ? 404 : 500, error.reason, field: "name")
        }
        logger.notice("forgot \(request.name) (the host still lists this controller until it is revoked there)")
        return AppAPI.Empty()
    }

    struct Announced: Encodable {
        let name: String
        let addresses: [String]
        let pairedAs: String?
    }

    struct LanList: Encodable { let hosts: [Announced] }

    /// The hosts announcing themselves on the LAN for 2 s (as `devices --scan`), each with the
    /// name it is paired under here, if any. Names come from any machine on the LAN.
    func lan() async throws(AppAPI.Failure) -> LanList {
        let crypto = try Self.crypto()
        let known = (try? await context.knownHosts.all()) ?? []
        let seen: [LanHost]
        do {
            seen = try await ReachWiring.lanDiscovery().browse(for: .seconds(2)) { _ in false }
        } catch {
            throw AppAPI.Failure(500, "the LAN cannot be searched here: \(error)")
        }
        let now = UInt64(max(0, Date().timeIntervalSince1970))
        return LanList(hosts: seen.map { host in
            let hint = host.txt[LanHint.txtKey] ?? ""
            let pairedAs = known.first { LanHint.matches(hint, hostKey: $0.publicKey, unixSeconds: now, crypto: crypto) }
            return Announced(name: TerminalSafeText.sanitized(host.name), addresses: host.endpoints.map(\.description), pairedAs: pairedAs?.name)
        })
    }

    static func crypto() throws(AppAPI.Failure) -> any NoiseCrypto {
        do {
            return try Identity.makeCrypto()
        } catch {
            throw AppAPI.Failure(500, error.message)
        }
    }
}
