internal import CReach
import Foundation
public import ZRCReach
public import ZRCProtocol

/// ICE agents on libnice (through CReach): UDP candidates, STUN and TURN servers from the
/// settings, a PseudoTCP stream over the selected pair.
public struct NiceAgentMaker: IceAgentMaker {
    public init() {}

    public func makeAgent(controlling: Bool, settings: IceSettings) async throws(ReachError) -> any IceAgent {
        let servers = try await ResolvedServers.resolve(settings)
        return try NiceIceAgent(controlling: controlling, settings: settings, servers: servers)
    }
}

/// Numeric addresses for the configured servers (libnice takes no names) and TURN credentials.
struct ResolvedServers: Sendable {
    struct Relay: Sendable {
        let url: ReachURL
        let address: String
        let username: String
        let password: String
    }

    var stun: (url: ReachURL, address: String)?
    var relays: [Relay] = []

    /// Lifetime of credentials derived from a REST shared secret.
    static let restCredentialSeconds = 24 * 3600

    static func resolve(_ settings: IceSettings) async throws(ReachError) -> ResolvedServers {
        var servers = ResolvedServers()
        for url in settings.stunServers {
            // The first STUN server that resolves; libnice uses one.
            if let address = await NameResolution.numericAddress(for: url.host) {
                servers.stun = (url, address)
                break
            }
        }
        for url in settings.relays.prefix(Int(ZRC_ICE_MAX_RELAYS)) {
            guard let address = await NameResolution.numericAddress(for: url.host) else {
                throw ReachError(.misconfigured, "cannot resolve the relay \(url) (check relayUrls)")
            }
            let (username, password) = try credentials(for: url)
            servers.relays.append(Relay(url: url, address: address, username: username, password: password))
        }
        if settings.relayOnly && servers.relays.isEmpty {
            throw ReachError(.misconfigured, "transportPreference is relay, but no relay is configured (relayUrls)")
        }
        return servers
    }

    private static func credentials(for url: ReachURL) throws(ReachError) -> (String, String) {
        switch url.credentials {
        case .password(let user, let password): return (user, password)
        case .sharedSecret(let secret):
            let expiry = Int(Date().timeIntervalSince1970) + restCredentialSeconds
            let username = "\(expiry):zrc"
            var output = [CChar](repeating: 0, count: 64)
            guard zrc_turn_rest_password(secret, username, &output, output.count) == 0 else {
                throw ReachError(.misconfigured, "cannot derive TURN credentials for \(url)")
            }
            return (username, String(cBuffer: output))
        case .none:
            throw ReachError(.misconfigured, "the relay \(url) has no credentials")
        }
    }
}

/// Blocking name resolution, off the cooperative pool.
enum NameResolution {
    static func numericAddress(for host: String) async -> String? {
        if IceCandidate.isNumericAddress(host) { return host }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: lookup(host)) }
        }
    }

    private static func lookup(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
        else { return nil }
        return String(cString: buffer)
    }
}
