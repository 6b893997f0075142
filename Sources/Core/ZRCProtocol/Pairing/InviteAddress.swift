/// Where the controller can reach the host: a DNS name, IPv4 literal or IPv6 literal (without
/// brackets), and a TCP port.
public struct InviteAddress: Sendable, Hashable, CustomStringConvertible {
    /// 1…253 UTF-8 bytes of what a host can be (`HostPort.hostProblem`).
    public var host: String
    /// 1…65535.
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why this address cannot be dialled, or nil when it is fine.
    func problem() -> String? {
        if let problem = HostPort.hostProblem(host) { return "an address is not a host name or IP address: \(problem)" }
        if port == 0 { return "address \(host) has port 0" }
        return nil
    }
}
