internal import CXCB
internal import Glibc

/// The X selections (`CLIPBOARD`, optionally `PRIMARY`) as text, both ways, on a connection of
/// its own:
/// - **Watching:** XFIXES SelectSelectionInput reports every change of owner; when another client
///   takes a selection, its text is read (`ConvertSelection` to `UTF8_STRING`, else `STRING` as
///   Latin-1) into this client's window, following the INCR protocol when the owner sends it in
///   parts, up to `maximumBytes`.
/// - **Owning:** `own(_:text:)` makes this client the selection's owner; it then answers other
///   clients' `SelectionRequest`s for `TARGETS`, `UTF8_STRING`, `text/plain;charset=utf-8`, `TEXT`
///   and `STRING`, in INCR parts of `chunkBytes` when the text is longer than one part.
///
/// ICCCM §2 describes both sides. No thread of its own: the owner waits on `fileDescriptor` and
/// calls `processEvents(nowMicros:)`, which does all the protocol work and returns what the
/// caller needs to know. Transfers that stall (an owner that never answers, a requestor that
/// never takes the next part) are dropped after `transferTimeoutMicros` without progress, and
/// any read after `readDeadlineMicros` in all (an owner dribbling one byte at a time).
///
/// Other X clients are not trusted: requests sent with SendEvent (anyone can) are ignored, at most
/// `maximumTransfers` INCR sends run at once (two per requestor window), and one call handles at
/// most `eventsPerCall` events (`hasQueuedEvents` says when more are waiting).
///
/// Not Sendable: one task or actor drives it.
public final class X11Clipboard {
    /// A selection this class can watch and own.
    public enum Selection: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case clipboard
        case primary

        var atomName: String { self == .clipboard ? "CLIPBOARD" : "PRIMARY" }
        public var description: String { atomName }
    }

    /// What happened, for the caller.
    public enum Event: Sendable, Equatable {
        /// Another client took `selection` (nothing was read yet; see `read(_:)`).
        case ownerChanged(Selection)
        /// The text of a read started with `read(_:)`: UTF-8 bytes as the owner gave them
        /// (`UTF8_STRING`), or converted from Latin-1 (`STRING`).
        case readFinished(Selection, text: [UInt8], incremental: Bool)
        /// A read failed; `reason` says why, for people.
        case readFailed(Selection, reason: String)
        /// Another client took a selection this client owned.
        case ownershipLost(Selection)
    }

    public let connection: X11Connection
    public let maximumBytes: Int
    public let chunkBytes: Int
    public let transferTimeoutMicros: UInt64
    let window: xcb_window_t
    let atoms: Atoms
    let xfixesSelectionNotify: UInt8
    let watched: [Selection]

    public let readDeadlineMicros: UInt64
    public static let maximumTransfers = 16
    static let eventsPerCall = 512

    /// Reads in progress, one per selection.
    var reads: [Selection: PendingRead] = [:]
    /// The server time of each selection's last change of owner (from XFIXES), for ConvertSelection;
    /// before any, the time this client started (later than whatever owner it found).
    var ownerChangeTimes: [Selection: xcb_timestamp_t] = [:]
    var startTime: xcb_timestamp_t = 0
    /// Events that arrived while the start time was fetched, handled first.
    private var earlyEvents: [UnsafeMutablePointer<xcb_generic_event_t>] = []
    /// SelectionNotify events that answered no read of this client's (forged, or late), ignored.
    public internal(set) var forgedNotifications = 0
    /// Where reads land on this client's window: a ring of properties, each read taking the next,
    /// so a transfer abandoned by an earlier read (its owner may go on sending) never mixes in.
    var nextReadProperty = 0
    /// The text this client owns, per selection.
    var owned: [Selection: OwnedText] = [:]
    /// INCR transfers to requestors, by (requestor window, property).
    var transfers: [TransferKey: OutgoingTransfer] = [:]
    /// Whether the last `processEvents` stopped at `eventsPerCall` with events left.
    public private(set) var hasQueuedEvents = false

    /// Reads completed with INCR, and INCR sends whose last part went out (tests, diagnostics).
    public private(set) var incrementalReads = 0
    public internal(set) var incrementalSends = 0

    /// - Parameters:
    ///   - selections: the selections to watch (and that `own` accepts).
    ///   - maximumBytes: the longest text read or owned; longer reads fail.
    ///   - chunkBytes: the part size of outgoing INCR transfers, and the largest text sent in one
    ///     property; capped by the server's request size.
    /// - Throws: `.extensionMissing` without XFIXES 2; `.requestFailed` when the window cannot be made.
    public init(connection: X11Connection, selections: [Selection], maximumBytes: Int, chunkBytes: Int = 64 * 1024,
                transferTimeoutMicros: UInt64 = 5_000_000, readDeadlineMicros: UInt64 = 30_000_000) throws(X11Error) {
        try ExtensionVersion.announceXFixes(on: connection)
        self.connection = connection
        self.maximumBytes = maximumBytes
        self.transferTimeoutMicros = transferTimeoutMicros
        self.readDeadlineMicros = readDeadlineMicros
        watched = selections
        let raw = connection.handle.raw
        // The server's request limit (4-byte units) minus ChangeProperty's header.
        let requestBytes = Int(xcb_get_maximum_request_length(raw)) * 4 - 64
        self.chunkBytes = max(1024, min(chunkBytes, requestBytes))
        atoms = try Atoms(connection: connection)
        // Present: announceXFixes checked; the data belongs to the connection.
        xfixesSelectionNotify = xcb_get_extension_data(raw, zrc_xcb_xfixes_id())!.pointee.first_event
            + UInt8(XCB_XFIXES_SELECTION_NOTIFY)
        window = xcb_generate_id(raw)
        guard window != UInt32.max else {
            throw X11Error(.connectionLost, "cannot allocate an X resource id: \(connection.handle.failure ?? "the connection is broken")")
        }
        // An unmapped InputOnly window: a place for properties and an identity as owner. It
        // hears PropertyNotify for its own properties (INCR parts arriving).
        var mask = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        try checkXCBRequest(on: connection.handle, request: "CreateWindow for the clipboard",
                            xcb_create_window_checked(raw, 0, window, connection.screen.rootWindow, -1, -1, 1, 1, 0,
                                                      UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
                                                      UInt32(XCB_CW_EVENT_MASK.rawValue), &mask))
        let events = UInt32(XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue)
        for selection in selections {
            try checkXCBRequest(on: connection.handle, request: "XFIXES SelectSelectionInput for \(selection)",
                                xcb_xfixes_select_selection_input_checked(raw, window, atoms.selection(selection), events))
        }
        startTime = try Self.serverTime(connection: connection, window: window, property: atoms.readProperties[0], keeping: &earlyEvents)
    }

    /// The X server's time now (ICCCM §2.1): a zero-length append to a property of this client's
    /// window, whose PropertyNotify carries the time. Other events that arrive meanwhile are kept
    /// for the first `processEvents`.
    private static func serverTime(connection: X11Connection, window: xcb_window_t, property: xcb_atom_t,
                                   keeping early: inout [UnsafeMutablePointer<xcb_generic_event_t>]) throws(X11Error) -> xcb_timestamp_t {
        let raw = connection.handle.raw
        xcb_change_property(raw, UInt8(XCB_PROP_MODE_APPEND.rawValue), window, property, xcb_atom_t(XCB_ATOM_STRING.rawValue), 8, 0, nil)
        xcb_flush(raw)
        while let event = xcb_wait_for_event(raw) {
            if event.pointee.response_type & 0x7F == UInt8(XCB_PROPERTY_NOTIFY), event.pointee.response_type & 0x80 == 0 {
                let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
                if notify.window == window, notify.atom == property {
                    free(event)
                    return notify.time
                }
            }
            early.append(event)
        }
        throw X11Error(.connectionLost, "the clipboard's X connection broke: \(connection.handle.failure ?? "no event")")
    }

    deinit {
        earlyEvents.forEach { free($0) }
        // The connection may be shared no further than this object; destroying the window
        // also gives up every selection it owns.
        xcb_destroy_window(connection.handle.raw, window)
        xcb_flush(connection.handle.raw)
    }

    /// The connection's socket: readable when events may be waiting.
    public var fileDescriptor: Int32 { xcb_get_file_descriptor(connection.handle.raw) }

    /// Whether INCR sends are under way (they expire on a timer, so the caller wakes for them).
    public var hasTransfers: Bool { !transfers.isEmpty }

    /// Whether this client owns `selection` now (as far as it has heard).
    public func owns(_ selection: Selection) -> Bool { owned[selection] != nil }

    /// The text this client owns for `selection`.
    public func ownedText(_ selection: Selection) -> [UInt8]? { owned[selection]?.utf8 }

    /// Handles the events that have arrived (at most `eventsPerCall`), and drops transfers that
    /// stalled.
    public func processEvents(nowMicros: UInt64) throws(X11Error) -> [Event] {
        let raw = connection.handle.raw
        var results: [Event] = []
        var handled = 0
        hasQueuedEvents = false
        for event in earlyEvents {
            handle(event, nowMicros: nowMicros, into: &results)
            free(event)
        }
        earlyEvents = []
        while let event = xcb_poll_for_event(raw) {
            defer { free(event) }
            handle(event, nowMicros: nowMicros, into: &results)
            handled += 1
            if handled == Self.eventsPerCall {
                hasQueuedEvents = true
                break
            }
        }
        if let failure = connection.handle.failure { throw X11Error(.connectionLost, "the clipboard's X connection broke: \(failure)") }
        expireStalled(nowMicros: nowMicros, into: &results)
        xcb_flush(raw)
        return results
    }

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>, nowMicros: UInt64, into results: inout [Event]) {
        let type = event.pointee.response_type & 0x7F
        // SendEvent marks what it delivers; any client can send anything that way. Only a
        // SelectionNotify legitimately comes so (from the owner answering a read).
        let synthetic = event.pointee.response_type & 0x80 != 0
        guard !synthetic || type == UInt8(XCB_SELECTION_NOTIFY) else { return }
        let sequence = event.pointee.full_sequence
        switch type {
        case xfixesSelectionNotify:
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_xfixes_selection_notify_event_t.self).pointee
            guard let selection = atoms.selection(named: notify.selection), notify.owner != window,
                  !isStale(sequence, for: selection) else { return }
            if owned.removeValue(forKey: selection) != nil { results.append(.ownershipLost(selection)) }
            // The previous owner's text, if a read of it is under way, is no longer what to share.
            reads[selection] = nil
            ownerChangeTimes[selection] = notify.timestamp
            // An owner of None (it quit or cleared the selection) leaves nothing to read.
            if notify.owner != 0 { results.append(.ownerChanged(selection)) }
        case UInt8(XCB_SELECTION_NOTIFY):
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_notify_event_t.self).pointee
            selectionNotified(notify, nowMicros: nowMicros, into: &results)
        case UInt8(XCB_PROPERTY_NOTIFY):
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
            if notify.window == window {
                if notify.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue) { incrementalPartArrived(notify.atom, nowMicros: nowMicros, into: &results) }
            } else if notify.state == UInt8(XCB_PROPERTY_DELETE.rawValue) {
                requestorTookPart(window: notify.window, property: notify.atom, nowMicros: nowMicros)
            }
        case UInt8(XCB_SELECTION_REQUEST):
            let request = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_request_event_t.self).pointee
            answer(request, nowMicros: nowMicros)
        case UInt8(XCB_SELECTION_CLEAR):
            let clear = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_clear_event_t.self).pointee
            if let selection = atoms.selection(named: clear.selection), !isStale(sequence, for: selection),
               owned.removeValue(forKey: selection) != nil {
                results.append(.ownershipLost(selection))
            }
        default:
            break  // errors of unchecked requests (a requestor window that vanished) and the like
        }
    }

    func noteIncrementalRead() { incrementalReads += 1 }

    /// Whether an event about `selection` was generated before this client's own SetSelectionOwner
    /// for it (its sequence number is older): a change of owner that this client's ownership has
    /// already replaced, queued while `own` ran.
    private func isStale(_ sequence: UInt32, for selection: Selection) -> Bool {
        guard let since = owned[selection]?.sequence else { return false }
        return Int32(bitPattern: sequence &- since) < 0
    }
}
