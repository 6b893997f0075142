import Foundation
import ZRCProtocol
import ZRCViewerKit

/// The web viewer's bookkeeping: the connection's state for the status bar, the frames the page
/// has, and the link figures. Plain data, changed only by `WebViewer`.
struct WebViewerState {
    var path: String?
    var roundTrip: Duration?
    var notice: (text: String, until: ContinuousClock.Instant)?
    var wantedPicture: PictureRequest?
    /// Counts the page's drawings, so a pending settle (see `WebViewer.pageDrew`) knows it is stale.
    var settleGeneration = 0
    /// The host's monitors as it last said (sent to every new page).
    var monitors: [MonitorArea] = []

    // Frames: page versions count messages to the current page.
    private(set) var pageVersion: UInt32 = 0
    private(set) var drawnVersion: UInt32 = 0
    private(set) var sentMapping: PictureMapping?
    private(set) var needsWholePicture = true
    var pumping = false
    var pumpAgain = false
    var sentCursorShape: UInt32?
    var sentCursorVisible = true
    // Input the page holds down, released when it goes.
    var heldButtons: Set<UInt8> = []
    var lastPointer: (Int32, Int32) = (0, 0)

    // Throughput.
    private var lastReceived: (total: Int, at: ContinuousClock.Instant)?
    private(set) var kilobytesPerSecond: Double?

    var inFlight: Int { Int(pageVersion - drawnVersion) }

    mutating func nextPageVersion() -> UInt32 {
        pageVersion += 1
        return pageVersion
    }

    /// Session versions of the frames sent and not yet drawn, by page version.
    private(set) var inFlightVersions: [(page: UInt32, session: UInt64)] = []

    mutating func sent(sessionVersion: UInt64, mapping: PictureMapping) {
        inFlightVersions.append((pageVersion, sessionVersion))
        sentMapping = mapping
        needsWholePicture = false
    }

    /// The page drew up to `version`; returns the newest session version now on its canvas.
    /// (Page versions only grow: at 60 a second, 32 bits last two years of one page.)
    mutating func drawn(_ version: UInt32) -> UInt64? {
        guard version > drawnVersion, version <= pageVersion else { return nil }
        drawnVersion = version
        var shown: UInt64?
        while let first = inFlightVersions.first, first.page <= version {
            shown = first.session
            inFlightVersions.removeFirst()
        }
        return shown
    }

    /// A new page has nothing: versions start again and the whole picture goes first.
    mutating func pageAdopted() {
        pageVersion = 0
        drawnVersion = 0
        inFlightVersions = []
        needsWholePicture = true
        sentCursorShape = nil
    }

    mutating func sessionStarted(path: String) {
        self.path = path
        roundTrip = nil
        lastReceived = nil
        kilobytesPerSecond = nil
        sentMapping = nil
        needsWholePicture = true
        sentCursorShape = nil
        inFlightVersions = []
    }

    mutating func noteReceived(total: Int, now: ContinuousClock.Instant) {
        if let last = lastReceived, now > last.at {
            let seconds = Double((now - last.at).components.attoseconds) / 1e18 + Double((now - last.at).components.seconds)
            kilobytesPerSecond = Double(max(0, total - last.total)) / 1000 / seconds
        }
        lastReceived = (total, now)
    }

    /// The status bar's model (`page/status.js` reads it); every text sanitized.
    func statusJSON(host: String, connection: ViewerCore.Connection, viewOnly: Bool, now: UInt64) -> [UInt8] {
        var fields: [String: Any] = ["host": TerminalSafeText.sanitized(host), "viewOnly": viewOnly]
        switch connection {
        case .connecting:
            fields["state"] = "connecting"
        case .connected:
            fields["state"] = "connected"
        case .waiting(let until, _, let reason):
            fields["state"] = "reconnecting"
            fields["retryIn"] = until > now ? Int((until - now + 999_999) / 1_000_000) : 0
            fields["reason"] = TerminalSafeText.sanitized(reason)
        case .ended(let reason):
            fields["state"] = "ended"
            fields["reason"] = TerminalSafeText.sanitized(reason)
        }
        if let path { fields["path"] = TerminalSafeText.sanitized(path) }
        if let roundTrip {
            fields["rttMs"] = Double(roundTrip.components.seconds) * 1000 + Double(roundTrip.components.attoseconds) / 1e15
        }
        if let kilobytesPerSecond { fields["kilobytesPerSecond"] = kilobytesPerSecond }
        if let notice, notice.until > ContinuousClock.now { fields["notice"] = notice.text }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }
}
