import Foundation
import ZRCNetworking
import ZRCProtocol
import ZRCStorage
import Logging

extension HostServer {
    /// Answers a request from the local control socket.
    func handle(_ request: HostControlRequest) async -> HostControlResponse {
        switch request {
        case .createInvite(let lifetime, let addresses):
            return createInvite(lifetimeSeconds: lifetime, addresses: addresses)
        case .listControllers:
            do {
                let all = try await controllers.all()
                return .controllers(all.map { controller in
                    ControllerSummary(name: controller.name,
                                      fingerprint: KeyDerivations.fingerprint(of: controller.publicKey, crypto: crypto),
                                      pairedAt: controller.pairedAt, lastSeen: controller.lastSeen,
                                      liveSessions: sessions.sessions(of: controller.publicKey).count)
                })
            } catch {
                return .failure(message: error.description)
            }
        case .revokeController(let name):
            do {
                let removed = try await controllers.revoke(name: name)
                revokedKeys.insert(removed.publicKey)
                controllersChanged()
                let live = sessions.sessions(of: removed.publicKey)
                for session in live {
                    await session.connection.close(reason: .revoked, text: "this controller's access was revoked on the host")
                }
                logger.info("revoked controller \(removed.name); ended \(live.count) live session(s)")
                return .revoked(name: removed.name, endedSessions: live.count)
            } catch {
                return .failure(message: error.description)
            }
        case .listSessions:
            var summaries: [SessionSummary] = []
            for entry in sessions.all.sorted(by: { $0.id < $1.id }) {
                let seconds = max(Date().timeIntervalSince(entry.since), 0.001)
                let rtt = await entry.connection.roundTripMicros
                let link = entry.link.stats
                summaries.append(SessionSummary(
                    id: entry.id, controllerName: entry.controllerName, since: entry.since, viewOnly: entry.viewOnly,
                    updatesPerSecond: Double(await entry.connection.sentFrameUpdates) / seconds,
                    bytesPerSecond: Double(await entry.connection.sentBytes) / seconds,
                    roundTripMilliseconds: rtt.map { Double($0) / 1000 },
                    deliveryRate: link.flatMap { $0.deliveryRate > 0 ? Double($0.deliveryRate) : nil },
                    queueMilliseconds: link.map { Double($0.queueMicros) / 1000 }))
            }
            return .sessions(summaries)
        case .endSession(let id):
            guard let entry = sessions.session(id: id) else {
                return .failure(message: "no live session \(id); `zrc-host sessions` lists them")
            }
            await entry.connection.close(reason: .normal, text: "the host's user ended this session")
            logger.notice("ended session \(id) of \(entry.controllerName) on request")
            return .sessionEnded(id: id)
        case .createCode, .codeStatus, .cancelCode:
            return await handleCode(request)
        case .status:
            return .status(ServerStatus(hostName: configuration.hostName, fingerprint: fingerprint,
                                        listening: boundAddress.map { [$0.description] } ?? [],
                                        liveSessions: sessions.count, openInvites: invites.openCount(now: configuration.unixSeconds)))
        }
    }

    /// Revocations made by editing the trust store rather than through the control socket (by
    /// hand, by `zrc-host controllers revoke` without a server for this identity, by a backup
    /// restored) take effect too: the file is looked at every second, and when it changed the
    /// sessions of keys no longer in it end and their rendezvous topics go.
    func watchTrustStore() async {
        var last = FileStamp(of: controllers.file)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = FileStamp(of: controllers.file)
            guard now != last else { continue }
            last = now
            await reconcileControllers()
        }
    }

    /// Ends the live sessions of controllers no longer in the trust store.
    func reconcileControllers() async {
        let present: Set<NoisePublicKey>
        do {
            present = Set(try await controllers.all().map(\.publicKey))
        } catch {
            // A damaged file: say so, keep what runs (the next handshake refuses anyway).
            logger.warning("the trust store changed and cannot be read: \(error)")
            return
        }
        let gone = sessions.all.filter { !present.contains($0.controllerKey) }
        revokedKeys.subtract(present)
        revokedKeys.formUnion(gone.map(\.controllerKey))
        for session in gone {
            await session.connection.close(reason: .revoked, text: "this controller's access was revoked on the host")
        }
        if !gone.isEmpty {
            let names = Set(gone.map(\.controllerName)).sorted().joined(separator: ", ")
            logger.notice("the trust store no longer holds \(names): ended \(gone.count) live session(s)")
        }
        controllersChanged()
    }

    private func createInvite(lifetimeSeconds: Int, addresses: [String]) -> HostControlResponse {
        guard HostConfig.inviteLifetimeRange.contains(lifetimeSeconds) else {
            let range = HostConfig.inviteLifetimeRange
            return .failure(message: "an invite lifetime must be between \(range.lowerBound) s and \(range.upperBound) s, got \(lifetimeSeconds) s")
        }
        guard let bound = boundAddress else { return .failure(message: "the server is not listening yet; try again") }
        let advertised: [HostPort]
        do {
            advertised = try advertisedAddresses(bound: bound, override: addresses)
        } catch {
            return .failure(message: "\(error)")
        }
        let expiresAt = configuration.unixSeconds + UInt64(lifetimeSeconds)
        do {
            let id = try InviteID(bytes: configuration.randomSecret(InviteID.length).copyBytes())
            let secret = configuration.randomSecret(Invite.secretLength)
            let invite = try Invite(hostKey: identity.publicKey, inviteID: id, secret: secret, expiresAt: expiresAt,
                                    addresses: advertised.map { InviteAddress(host: $0.host, port: $0.port) },
                                    hostName: configuration.hostName, servers: configuration.reach?.advertised ?? [])
            invites.add(id: id.bytes, secret: secret, expiresAt: expiresAt)
            logger.info("created an invite valid for \(lifetimeSeconds) s (\(invites.openCount(now: configuration.unixSeconds)) open)")
            return .invite(InviteSummary(invite: invite.text, hostFingerprint: fingerprint, hostName: configuration.hostName,
                                         addresses: advertised.map(\.description),
                                         expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt))))
        } catch {
            return .failure(message: "could not create the invite: \(error)")
        }
    }
}
