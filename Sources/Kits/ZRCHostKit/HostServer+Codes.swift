import Foundation
import Logging
import ZRCProtocol
import ZRCStorage

extension HostServer {
    /// A controller proved a pairing code: the invite derived from the CPace key waits for its
    /// pairing handshake — redeemable by that controller's key alone — and the rendezvous listens
    /// for that key's offers until then, so a controller behind a NAT can pair too.
    func expectCodePairing(keys: CodePairingKeys, controllerKey: NoisePublicKey, temporary: Bool, until: UInt64) {
        invites.add(id: keys.inviteID.bytes, secret: keys.secret, expiresAt: until, controllerKey: controllerKey)
        codePairings[controllerKey] = CodePairingExpectation(until: until, temporary: temporary)
        controllersChanged()
    }

    /// The code was withdrawn while its pairing was being set up: the derived invite goes.
    func withdrawCodePairing(keys: CodePairingKeys, controllerKey: NoisePublicKey) {
        invites.remove(id: keys.inviteID.bytes)
        codePairings[controllerKey] = nil
        controllersChanged()
    }

    /// Whether `key` proved a code made with `--temporary`.
    func isTemporaryCodePairing(_ key: NoisePublicKey) -> Bool { codePairings[key]?.temporary ?? false }

    /// A session ended: a controller authorized for one session (`--temporary`) with no other
    /// session left loses its authorization now.
    func endTemporaryAuthorization(of key: NoisePublicKey) async {
        guard sessions.sessions(of: key).isEmpty else { return }
        do {
            let removed = try await controllers.removeTemporary(keys: [key])
            for controller in removed {
                logger.notice("removed controller \(controller.name): it was authorized for one session, which ended")
            }
            if !removed.isEmpty { controllersChanged() }
        } catch {
            logger.error("could not remove a controller authorized for one session: \(error)")
        }
    }

    /// A controller authorized for one session that opens none within `window` loses its
    /// authorization then (one that does loses it when the session ends).
    nonisolated func expireTemporaryAuthorization(of key: NoisePublicKey, after window: Duration = .seconds(600)) {
        Task {
            try? await Task.sleep(for: window)
            await self.endTemporaryAuthorization(of: key)
        }
    }

    /// Controllers that proved a code and have yet to pair.
    func codePairingKeys() -> [NoisePublicKey] {
        let now = configuration.unixSeconds
        codePairings = codePairings.filter { now < $0.value.until }
        return Array(codePairings.keys)
    }

    /// What the host says about itself in a code's CPace run: an invite without ID and secret.
    func hostPairingAD(expiresAt: UInt64) throws -> HostPairingAD {
        guard let bound = boundAddress else { throw HostServerError("the server is not listening yet; try again") }
        let addresses = try advertisedAddresses(bound: bound, override: [])
        return try HostPairingAD(hostKey: identity.publicKey, expiresAt: expiresAt,
                                 addresses: addresses.map { InviteAddress(host: $0.host, port: $0.port) },
                                 hostName: configuration.hostName, servers: configuration.reach?.advertised ?? [])
    }

    /// The addresses invites carry: `override`, else the configured ones, else those of the
    /// listening address.
    func advertisedAddresses(bound: HostPort, override: [String]) throws -> [HostPort] {
        var advertised: [HostPort] = []
        for text in override.isEmpty ? configuration.advertisedAddresses : override {
            guard let address = HostPort(parsing: text, defaultPort: bound.port) else {
                throw HostServerError("`\(text)` is not an address (host, host:port or [v6]:port)")
            }
            advertised.append(address)
        }
        if advertised.isEmpty {
            advertised = AdvertisedAddresses.derive(listeningHost: bound.host, port: bound.port)
        }
        guard !advertised.isEmpty else {
            throw HostServerError("this host has no network address besides loopback: to pair on this machine alone, serve with "
                + "--listen 127.0.0.1:PORT; otherwise name the addresses (`zrc-host serve --advertise ADDR`, `zrc-host pair --address ADDR`)")
        }
        guard advertised.count <= WireLimits.maxInviteAddresses else {
            throw HostServerError("an invite holds at most \(WireLimits.maxInviteAddresses) addresses")
        }
        return advertised
    }

    func handleCode(_ request: HostControlRequest) async -> HostControlResponse {
        guard let desk = codeDesk else {
            return .failure(message: "this host cannot pair by code (no CPace group configured)")
        }
        switch request {
        case .createCode(let lifetime, let temporary):
            guard HostConfig.codeLifetimeRange.contains(lifetime) else {
                let range = HostConfig.codeLifetimeRange
                return .failure(message: "a code's lifetime must be between \(range.lowerBound) s and \(range.upperBound) s, got \(lifetime) s")
            }
            return await desk.open(lifetimeSeconds: lifetime, temporary: temporary, host: boundAddress) { expiresAt in
                try await self.hostPairingAD(expiresAt: expiresAt)
            }
        case .codeStatus(let locator):
            return await desk.status(locator: locator)
        case .cancelCode(let locator):
            return await desk.cancel(locator: locator)
        case .createInvite, .listControllers, .revokeController, .listSessions, .endSession, .status:
            return .failure(message: "not a pairing code request")
        }
    }
}

/// A controller that proved a code: until when its handshake may come, and whether its
/// authorization lasts one session.
struct CodePairingExpectation: Sendable {
    let until: UInt64
    let temporary: Bool
}

struct HostServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
