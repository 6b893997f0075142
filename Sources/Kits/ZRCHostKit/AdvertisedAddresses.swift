import NIOCore
import NIOPosix
import ZRCProtocol

/// The addresses a host puts into invites when the user names none: the listening address, or
/// for a wildcard listener every non-loopback interface address (none when offline).
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
        // Never loopback for a wildcard listener, not even offline: on any other machine
        // 127.0.0.1 is that machine — where another ZRC host may answer, with another key. A host
        // meant for this machine alone listens on loopback (the guard above).
        return Array(found.prefix(WireLimits.maxInviteAddresses))
    }
}
