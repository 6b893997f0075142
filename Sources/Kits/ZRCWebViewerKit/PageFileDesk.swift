import Foundation
import ZRCControllerKit
import ZRCProtocol

/// The browser viewer's file bookkeeping: the host's terms for the page, the tickets handed out
/// (one use each, a minute at most, 16 at once) and the transfers running, by the page's tag.
struct PageFileDesk {
    struct Ticket {
        enum Kind {
            case upload(size: UInt64, modifiedMicros: Int64, replace: Bool)
            case download(name: FileName, size: UInt64)
        }

        let tag: UInt32
        let remote: RemotePath
        let kind: Kind
        let issued: ContinuousClock.Instant
    }

    enum Running {
        case upload(PageUploadPipe)
        case download(PageDownloadStream)
    }

    static let maximumTickets = 16
    static let ticketLifetime: Duration = .seconds(60)

    var terms: FileTerms?
    private var tickets: [String: Ticket] = [:]
    var running: [UInt32: Running] = [:]
    /// When each transfer last told the page its progress.
    var progressSent: [UInt32: ContinuousClock.Instant] = [:]

    /// A fresh ticket for `ticket`'s work (128 random bits, hex); the oldest goes past the limit.
    mutating func issue(_ ticket: Ticket) -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): a cryptographic source
        let value = Hex.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        forgetExpired(now: ticket.issued)
        if tickets.count >= Self.maximumTickets, let oldest = tickets.min(by: { $0.value.issued < $1.value.issued })?.key {
            tickets[oldest] = nil
        }
        tickets[value] = ticket
        return value
    }

    /// The ticket's work, once: a ticket used, expired or unknown gives nil.
    mutating func redeem(_ value: String, now: ContinuousClock.Instant) -> Ticket? {
        forgetExpired(now: now)
        return tickets.removeValue(forKey: value)
    }

    mutating func dropTickets(tag: UInt32) {
        tickets = tickets.filter { $0.value.tag != tag }
    }

    private mutating func forgetExpired(now: ContinuousClock.Instant) {
        tickets = tickets.filter { now - $0.value.issued < Self.ticketLifetime }
    }

    /// Whether to tell the page of progress now (at most 10 times a second per transfer, and the end).
    mutating func shouldReport(_ tag: UInt32, done: UInt64, total: UInt64, now: ContinuousClock.Instant) -> Bool {
        if done < total, let last = progressSent[tag], now - last < .milliseconds(100) { return false }
        progressSent[tag] = now
        return true
    }

    /// A file event for the page, as JSON.
    static func event(_ name: String, tag: UInt32? = nil, _ fields: [String: Any] = [:]) -> [UInt8] {
        var object = fields
        object["event"] = name
        if let tag { object["tag"] = Int(tag) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }

    /// A listing's entries for the page: directories first, then by name; invalid names escaped
    /// and marked so the page offers no download of them.
    static func entries(_ list: [FileEntry]) -> [[String: Any]] {
        list.map { entry -> (FileEntry, [String: Any]) in
            let valid = (try? FileName(validating: entry.name)) != nil
            return (entry, ["name": entry.shownName, "valid": valid, "kind": entry.kind.description, "size": entry.size,
                            "modified": entry.modifiedMicros / 1000])
        }
        .sorted { a, b in
            let aDirectory = a.0.kind == .directory, bDirectory = b.0.kind == .directory
            if aDirectory != bDirectory { return aDirectory }
            return a.0.shownName.localizedStandardCompare(b.0.shownName) == .orderedAscending
        }
        .map(\.1)
    }
}
