import ZRCProtocol

/// What the status line says: host, session state, renderer, frame rate, input-to-frame latency,
/// bandwidth, quality, zoom, and how to reach the help.
public struct ViewerStatus: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case connecting
        case connected(viewOnly: Bool)
        /// Waiting `seconds` before attempt number `attempt` (1-based) to reconnect.
        case reconnecting(seconds: Int, attempt: Int, reason: String)
        case stopped(String)
    }

    public var host: String
    public var state: State = .connecting
    public var renderer: String
    public var framesPerSecond: Double = 0
    /// Time from sending input to the first frame decoded after it, smoothed; nil until measured.
    public var inputToFrameMillis: Double?
    public var bytesPerSecond: Double = 0
    /// The newest frame's JPEG quality (0: lossless, no JPEG in it).
    public var quality: Int?
    public var zoom: Double = 1
    /// The path as the host measures it: delivery rate (bytes/s) and queueing (ms); nil until known.
    public var pathRate: Double?
    public var queueMillis: Double?
    /// The path the session runs over (`direct TCP …`, `ICE direct (srflx)`, `relay via …`) and
    /// its keepalive round trip.
    public var path: String?
    public var roundTripMillis: Double?
    /// A message for the user, shown for a moment after the state (paste mode, clipboard).
    public var notice: String?
    /// File copies running beside the viewer (`zrc-ctl cp` to or from this host).
    public var transfers: String?

    public init(host: String, renderer: String) {
        self.host = host
        self.renderer = renderer
    }

    /// The line, cut or padded to exactly `width` characters. Host names and reasons can carry
    /// peer words: the line goes through `TerminalSafeText` whatever its parts did before.
    public func line(width: Int) -> String {
        var parts = [TerminalSafeText.sanitized(host), TerminalSafeText.sanitized(stateText)]
        if let notice { parts.append(TerminalSafeText.sanitized(notice)) }
        if let transfers { parts.append(TerminalSafeText.sanitized(transfers)) }
        parts.append(renderer)
        if case .connected = state {
            if let path {
                parts.append(TerminalSafeText.sanitized(path) + (roundTripMillis.map { " \(format1($0)) ms" } ?? ""))
            }
            parts.append(String(format1(framesPerSecond)) + " fps")
            if let inputToFrameMillis { parts.append("input→frame \(Int(inputToFrameMillis.rounded())) ms") }
            parts.append(Self.rate(bytesPerSecond))
            if let pathRate { parts.append("path \(Self.bits(pathRate)), queue \(Int((queueMillis ?? 0).rounded())) ms") }
            if let quality { parts.append(quality == 0 ? "lossless" : "q\(quality)") }
            if zoom > 1.001 { parts.append("zoom ×\(format1(zoom))") }
        }
        parts.append("Ctrl+] ? help")
        let text = " " + parts.joined(separator: " │ ")
        let characters = Array(text)
        if characters.count >= width { return String(characters.prefix(max(0, width))) }
        return text + String(repeating: " ", count: width - characters.count)
    }

    private var stateText: String {
        switch state {
        case .connecting: "connecting…"
        case .connected(let viewOnly): viewOnly ? "view only" : "connected"
        case .reconnecting(let seconds, let attempt, let reason): "\(reason); reconnecting in \(seconds) s (attempt \(attempt))"
        case .stopped(let reason): reason
        }
    }

    private func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 || value >= 10 ? "\(Int(value.rounded()))" : "\(tenths / 10).\(tenths % 10)"
    }

    /// A path's rate as people quote links: in bits.
    static func bits(_ bytesPerSecond: Double) -> String {
        let bits = bytesPerSecond * 8
        switch bits {
        case ..<1_000_000: return "\(Int((bits / 1000).rounded())) kbit/s"
        case ..<100_000_000: return "\(Int((bits / 100_000).rounded()) / 10).\(Int((bits / 100_000).rounded()) % 10) Mbit/s"
        default: return "\(Int((bits / 1_000_000).rounded())) Mbit/s"
        }
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        switch bytesPerSecond {
        case ..<1000: "\(Int(bytesPerSecond)) B/s"
        case ..<1_000_000: "\(Int((bytesPerSecond / 1000).rounded())) kB/s"
        default: "\(Int((bytesPerSecond / 100_000).rounded()) / 10).\(Int((bytesPerSecond / 100_000).rounded()) % 10) MB/s"
        }
    }
}
