/// Which end of a connection this code is; error messages name the other end and say which program
/// to upgrade or fix.
public enum PeerRole: Sendable, Hashable {
    case host
    case controller

    /// The other end.
    public var peer: PeerRole {
        switch self {
        case .host: .controller
        case .controller: .host
        }
    }

    var name: String {
        switch self {
        case .host: "host"
        case .controller: "controller"
        }
    }

    var program: String {
        switch self {
        case .host: "zrc-host"
        case .controller: "zrc-ctl"
        }
    }
}
