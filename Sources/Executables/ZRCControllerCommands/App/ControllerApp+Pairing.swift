import Foundation
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCProtocol
import ZRCSodium
import ZRCStorage

/// One pairing started from the Pair screen: the host is found first (by code: LAN and
/// rendezvous, then CPace; by invite: at once), its name and fingerprint are shown, and only when
/// the person confirms is the pairing run and the host saved.
struct AppPairingJob: Sendable {
    enum State: Sendable {
        /// Looking for the host; `place` once an announcement was found (the code is being proven).
        case looking(place: String?)
        /// Found and authenticated (CPace, or the invite's own key): waiting for the person.
        case found(Invite, byCode: Bool, inviteText: String?)
        case pairing
        case paired(KnownHost)
        case failed(String)
    }

    let id: Int
    var state: State
}

extension ControllerApp {
    struct PairStartRequest: Decodable {
        let code: String?
        let invite: String?
    }

    struct PairConfirmRequest: Decodable {
        let job: Int
        let name: String?
        let replace: Bool?
    }

    /// A pairing as the page shows it; only the fields of its state are set.
    struct PairStatus: Encodable {
        let job: Int
        /// looking, found, pairing, paired or failed.
        let state: String
        var place: String? = nil
        var hostName: String? = nil
        var hostFingerprint: String? = nil
        var controllerFingerprint: String? = nil
        var pairedAs: String? = nil
        var error: String? = nil
    }

    struct PairStarted: Encodable { let job: Int }

    func startPairing(_ request: PairStartRequest) throws(AppAPI.Failure) -> PairStarted {
        let controller = try controller(showingScreen: false)
        let id = makeJobID()
        switch (request.code, request.invite) {
        case (let text?, nil):
            guard text.utf8.count <= 256 else { throw AppAPI.Failure(400, "that is not a code: it is longer than 256 bytes", field: "code") }
            let code: PairingCode
            do {
                code = try PairingCode(parsing: text)
            } catch {
                throw AppAPI.Failure(400, "\(error)", field: "code")
            }
            let group: SodiumCPaceGroup
            do {
                group = try SodiumCPaceGroup()
            } catch {
                throw AppAPI.Failure(500, "\(error)")
            }
            pairing = AppPairingJob(id: id, state: .looking(place: nil))
            Task {
                do {
                    let invite = try await controller.findHost(code: code, group: group) { progress in
                        if case .found(let place) = progress { Task { await self.update(id, .looking(place: place)) } }
                    }
                    self.update(id, .found(invite, byCode: true, inviteText: nil))
                } catch let error as ControllerError {
                    self.update(id, .failed(error.message))
                } catch {
                    self.update(id, .failed("\(error)"))
                }
            }
        case (nil, let text?):
            guard text.utf8.count <= 4096 else { throw AppAPI.Failure(400, "that is not an invite: it is longer than 4 KiB", field: "invite") }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            do {
                pairing = AppPairingJob(id: id, state: .found(try Invite(parsing: trimmed), byCode: false, inviteText: trimmed))
            } catch {
                throw AppAPI.Failure(400, error.message, field: "invite")
            }
        default:
            throw AppAPI.Failure(400, "give a code or an invite", field: "code")
        }
        return PairStarted(job: id)
    }

    private func update(_ id: Int, _ state: AppPairingJob.State) {
        guard pairing?.id == id else { return }
        // A progress report that comes late (the host was found meanwhile) changes nothing.
        if case .looking = state {
            guard case .looking? = pairing?.state else { return }
        }
        pairing?.state = state
    }

    func pairingStatus(_ request: JobRequest) throws(AppAPI.Failure) -> PairStatus {
        guard let job = pairing, job.id == request.job else { throw AppAPI.Failure(404, "no such pairing (another one replaced it)", field: "job") }
        let crypto = try Self.crypto()
        // This controller's fingerprint, which the host shows too (a code pairing's both ends).
        let own = { () -> String? in (try? self.controller(showingScreen: false).identityKey).map { KeyDerivations.fingerprint(of: $0, crypto: crypto) } }
        switch job.state {
        case .looking(let place):
            return PairStatus(job: job.id, state: "looking", place: place.map { TerminalSafeText.sanitized($0) })
        case .found(let invite, let byCode, _):
            return PairStatus(job: job.id, state: "found", hostName: TerminalSafeText.sanitized(invite.hostName),
                              hostFingerprint: KeyDerivations.fingerprint(of: invite.hostKey, crypto: crypto), controllerFingerprint: byCode ? own() : nil)
        case .pairing:
            return PairStatus(job: job.id, state: "pairing")
        case .paired(let host):
            return PairStatus(job: job.id, state: "paired", hostName: TerminalSafeText.sanitized(host.hostName),
                              hostFingerprint: KeyDerivations.fingerprint(of: host.publicKey, crypto: crypto), controllerFingerprint: own(),
                              pairedAs: host.name)
        case .failed(let message):
            return PairStatus(job: job.id, state: "failed", error: TerminalSafeText.sanitized(message))
        }
    }

    /// The person saw the host's name and fingerprint and saves it as `name`.
    func confirmPairing(_ request: PairConfirmRequest) async throws(AppAPI.Failure) -> PairStarted {
        guard let job = pairing, job.id == request.job else { throw AppAPI.Failure(404, "no such pairing (another one replaced it)", field: "job") }
        guard case .found(let invite, let byCode, let inviteText) = job.state else {
            throw AppAPI.Failure(409, "this pairing is not waiting for a confirmation")
        }
        let name = request.name?.trimmingCharacters(in: .whitespaces).isEmpty == false ? request.name : nil
        if let name, let problem = DeviceName.problem(with: name) { throw AppAPI.Failure(400, problem, field: "name") }
        let controller = try controller(showingScreen: false)
        let replace = request.replace ?? false
        // Said now, while the person can still choose another name.
        if !replace, let existing = try? await context.knownHosts.host(named: name ?? invite.hostName), existing.publicKey != invite.hostKey {
            throw AppAPI.Failure(409, "another host is already paired as `\(existing.name)`: choose another name", field: "name")
        }
        // The name check awaited: the job may have been confirmed, cancelled or replaced meanwhile.
        guard pairing?.id == job.id, case .found? = pairing?.state else { throw AppAPI.Failure(409, "this pairing is not waiting for a confirmation") }
        pairing?.state = .pairing
        let id = job.id
        Task {
            do {
                let host = byCode ? try await controller.pair(found: invite, name: name, replacing: replace)
                    : try await controller.pair(inviteText: inviteText ?? "", name: name, replacing: replace)
                self.update(id, .paired(host))
                self.logger.notice("paired with \(host.hostName) as \(host.name)")
            } catch let error as ControllerError {
                self.update(id, .failed(error.message))
            } catch {
                self.update(id, .failed("\(error)"))
            }
        }
        return PairStarted(job: id)
    }

    func cancelPairing(_ request: JobRequest) throws(AppAPI.Failure) -> AppAPI.Empty {
        if pairing?.id == request.job { pairing = nil }
        return AppAPI.Empty()
    }
}
