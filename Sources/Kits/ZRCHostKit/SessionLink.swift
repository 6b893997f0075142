import Synchronization
import ZRCProtocol

/// The path of one session as its streamer last measured it, for `zrc-host sessions`: written by
/// the streamer, read by the control socket's listing.
final class SessionLink: Sendable {
    private let latest = Mutex<LinkStats?>(nil)

    func update(_ stats: LinkStats) { latest.withLock { $0 = stats } }

    var stats: LinkStats? { latest.withLock { $0 } }
}
