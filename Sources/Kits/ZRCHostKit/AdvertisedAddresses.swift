import NIOCore
import NIOPosix
import ZRCProtocol

/// The addresses a host puts into invites when the user names none.
enum AdvertisedAddresses {
    static func derive(listeningHost: String, port: UInt16) -> [HostPort] {
        let wildcard = listeningHost == "0.0.0.0" || listeningHost == "::" || listeningHost.isEmpty
        guard wildcard else { return [HostPort(host: listeningHost, port: port)] }
        var found: [HostPort] = []
        let devices = (try? System.enumerateDevices()) ?? []
        for device in devices {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            if case .v6 = address, listeningHost == "0.0.0.0" { continue }
            if ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("fe80:") { continue }
            let candidate = HostPort(host: ip, port: port)
            if !found.contains(candidate) { found.append(candidate) }
        }
        // Loopback only when there is nothing else (offline): a controller on this machine reaches
        // the other addresses too, and on any other machine 127.0.0.1 is that machine — where
        // another ZRC host may answer, with another key.
        if found.isEmpty { found.append(HostPort(host: listeningHost.contains(":") ? "::1" : "127.0.0.1", port: port)) }
        return Array(found.prefix(WireLimits.maxInviteAddresses))
    }
}
