internal import CXCB
internal import Glibc

extension X11Clipboard {
    /// What this client owns: the text, its Latin-1 form once a `STRING` requestor asked, and the
    /// sequence number of the SetSelectionOwner that took it (events older than that are stale).
    struct OwnedText {
        let utf8: [UInt8]
        var latin1: [UInt8]?
        let sequence: UInt32
    }

    struct TransferKey: Hashable {
        let requestor: xcb_window_t
        let property: xcb_atom_t
    }

    /// An INCR send: `data` goes out in parts each time the requestor deletes the property.
    struct OutgoingTransfer {
        let data: [UInt8]
        let type: xcb_atom_t
        var offset: Int
        var finished: Bool
        var since: UInt64
    }

    /// Makes this client the owner of `selection` with `text` (UTF-8). Other clients' requests
    /// are answered from `processEvents`.
    /// - Throws: `.invalidInput` for text over `maximumBytes`; `.requestFailed` when another
    ///   client kept the selection (the server did not make this client its owner).
    public func own(_ selection: Selection, text: [UInt8]) throws(X11Error) {
        guard text.count <= maximumBytes else {
            throw X11Error(.invalidInput, "\(text.count) bytes of text is more than the \(maximumBytes) the clipboard takes")
        }
        let raw = connection.handle.raw
        let atom = atoms.selection(selection)
        let cookie = xcb_set_selection_owner(raw, window, atom, xcb_timestamp_t(XCB_CURRENT_TIME))
        owned[selection] = OwnedText(utf8: text, latin1: nil, sequence: UInt32(truncatingIfNeeded: cookie.sequence))
        let owner = try withXCBReply(on: connection.handle, request: "GetSelectionOwner \(selection)", { error in
            xcb_get_selection_owner_reply(raw, xcb_get_selection_owner(raw, atom), error)
        }) { reply in reply.pointee.owner }
        guard owner == window else {
            owned[selection] = nil
            throw X11Error(.requestFailed, "the X server did not make ZRC the owner of \(selection)")
        }
    }

    /// Whether any client owns `selection` (a round trip; events that arrive meanwhile wait in
    /// the connection's queue for `processEvents`).
    public func hasOwner(_ selection: Selection) throws(X11Error) -> Bool {
        let raw = connection.handle.raw
        return try withXCBReply(on: connection.handle, request: "GetSelectionOwner \(selection)", { error in
            xcb_get_selection_owner_reply(raw, xcb_get_selection_owner(raw, atoms.selection(selection)), error)
        }) { reply in reply.pointee.owner != 0 }
    }

    /// Answers one client's request for the content of a selection this client owns.
    func answer(_ request: xcb_selection_request_event_t, nowMicros: UInt64) {
        let raw = connection.handle.raw
        // Obsolete clients name no property: the target's name is used instead (ICCCM §2.2).
        let property = request.property != 0 ? request.property : request.target
        var granted = false
        // ZRC never asks itself: a request naming this client's own window as the requestor is
        // another client's trick (an INCR send to it would end by clearing this window's event
        // mask, and reads would stop hearing their parts). Refused, nothing written.
        if request.requestor != window, let selection = atoms.selection(named: request.selection), let text = owned[selection]?.utf8 {
            switch request.target {
            case atoms.targets:
                let offered = [atoms.targets, atoms.utf8String, atoms.textPlainUTF8, atoms.text, atoms.string]
                offered.withUnsafeBytes { bytes in
                    _ = xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), request.requestor, property, atoms.atom, 32,
                                            UInt32(offered.count), bytes.baseAddress)
                }
                granted = true
            case atoms.utf8String, atoms.textPlainUTF8, atoms.text:
                // TEXT may be answered in any text encoding; UTF-8 is what clients expect today.
                let type = request.target == atoms.textPlainUTF8 ? atoms.textPlainUTF8 : atoms.utf8String
                granted = send(text, type: type, to: request.requestor, property: property, nowMicros: nowMicros)
            case atoms.string:
                let latin1 = owned[selection]?.latin1 ?? Self.latin1(utf8: text)
                owned[selection]?.latin1 = latin1
                granted = send(latin1, type: atoms.string, to: request.requestor, property: property, nowMicros: nowMicros)
            default:
                granted = false  // MULTIPLE, TIMESTAMP, images: not offered
            }
        }
        var notify = xcb_selection_notify_event_t()
        notify.response_type = UInt8(XCB_SELECTION_NOTIFY)
        notify.time = request.time
        notify.requestor = request.requestor
        notify.selection = request.selection
        notify.target = request.target
        notify.property = granted ? property : 0
        withUnsafeBytes(of: &notify) { bytes in
            _ = xcb_send_event(raw, 0, request.requestor, UInt32(XCB_EVENT_MASK_NO_EVENT.rawValue),
                               bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }

    /// Puts `data` into the requestor's property: at once when it fits one request, else as an
    /// INCR transfer whose parts follow the requestor's deletions.
    private func send(_ data: [UInt8], type: xcb_atom_t, to requestor: xcb_window_t, property: xcb_atom_t, nowMicros: UInt64) -> Bool {
        let raw = connection.handle.raw
        guard data.count > chunkBytes else {
            data.withUnsafeBytes { bytes in
                _ = xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), requestor, property, type, 8, UInt32(data.count),
                                        bytes.baseAddress)
            }
            return true
        }
        let key = TransferKey(requestor: requestor, property: property)
        // One transfer per requestor property (a second request replaces a stalled first), two per
        // requestor window, `maximumTransfers` in all: what clients can make this one hold.
        let sameWindow = transfers.keys.filter { $0.requestor == requestor && $0 != key }.count
        guard transfers[key] != nil || (transfers.count < Self.maximumTransfers && sameWindow < 2) else { return false }
        var mask = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        xcb_change_window_attributes(raw, requestor, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
        var size = UInt32(data.count)
        xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), requestor, property, atoms.incr, 32, 1, &size)
        transfers[key] = OutgoingTransfer(data: data, type: type, offset: 0, finished: false, since: nowMicros)
        return true
    }

    /// The requestor deleted the property: the next part (or the empty one that ends it).
    func requestorTookPart(window requestor: xcb_window_t, property: xcb_atom_t, nowMicros: UInt64) {
        let key = TransferKey(requestor: requestor, property: property)
        guard var transfer = transfers[key] else { return }
        let raw = connection.handle.raw
        if transfer.finished {
            // The requestor took the empty part: done. Stop hearing about its window.
            transfers[key] = nil
            stopWatching(requestor)
            return
        }
        let end = min(transfer.offset + chunkBytes, transfer.data.count)
        transfer.data[transfer.offset..<end].withUnsafeBytes { bytes in
            _ = xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), requestor, property, transfer.type, 8,
                                    UInt32(bytes.count), bytes.baseAddress)
        }
        // An empty part (offset at the end) is the terminator.
        transfer.finished = transfer.offset == transfer.data.count
        if transfer.finished { incrementalSends += 1 }
        transfer.offset = end
        transfer.since = nowMicros
        transfers[key] = transfer
    }

    func expireTransfers(nowMicros: UInt64) {
        let stalled = transfers.filter { nowMicros > $0.value.since + transferTimeoutMicros }.keys
        for key in stalled {
            transfers[key] = nil
            stopWatching(key.requestor)
        }
    }

    /// Stops hearing about a requestor's window once no transfer to it is left.
    private func stopWatching(_ requestor: xcb_window_t) {
        guard requestor != window, !transfers.keys.contains(where: { $0.requestor == requestor }) else { return }
        var none = [UInt32(0)]
        xcb_change_window_attributes(connection.handle.raw, requestor, UInt32(XCB_CW_EVENT_MASK.rawValue), &none)
    }

    /// UTF-8 as ISO 8859-1 for `STRING` requestors: what Latin-1 cannot hold becomes `?`.
    static func latin1(utf8 bytes: [UInt8]) -> [UInt8] {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map { $0.value < 0x100 ? UInt8($0.value) : UInt8(ascii: "?") }
    }
}
