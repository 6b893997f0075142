internal import CXCB
internal import Glibc

extension X11Clipboard {
    /// A read in progress, into `property` of this client's window, begun at `started`.
    struct PendingRead {
        enum Stage {
            /// ConvertSelection sent for `target`; waiting for the owner's SelectionNotify.
            case converting(target: xcb_atom_t)
            /// The owner sends INCR parts; `received` so far.
            case incremental(received: [UInt8], isLatin1: Bool)
        }

        var stage: Stage
        let property: xcb_atom_t
        /// The server time the ConvertSelection named; the owner's SelectionNotify must carry it.
        let time: xcb_timestamp_t
        let started: UInt64
        /// The last sign of progress (the request, a part).
        var since: UInt64
    }

    /// Asks the owner of `selection` for its text; the answer comes as `readFinished` or
    /// `readFailed` from `processEvents`. A read already in progress goes on (one per selection;
    /// a change of owner abandons it, so the caller reads again).
    public func read(_ selection: Selection, nowMicros: UInt64) {
        guard reads[selection] == nil else { return }
        let property = atoms.readProperties[nextReadProperty % atoms.readProperties.count]
        nextReadProperty += 1
        // The server time of the last change of owner (ICCCM asks for a real time, not
        // CurrentTime); the owner copies it into its answer.
        let time = ownerChangeTimes[selection] ?? startTime
        convert(selection, to: atoms.utf8String, into: property, time: time, started: nowMicros, nowMicros: nowMicros)
    }

    private func convert(_ selection: Selection, to target: xcb_atom_t, into property: xcb_atom_t, time: xcb_timestamp_t, started: UInt64,
                         nowMicros: UInt64) {
        let raw = connection.handle.raw
        xcb_delete_property(raw, window, property)
        xcb_convert_selection(raw, window, atoms.selection(selection), target, property, time)
        xcb_flush(raw)
        reads[selection] = PendingRead(stage: .converting(target: target), property: property, time: time, started: started, since: nowMicros)
    }

    /// The answer to a ConvertSelection. Any client can send a SelectionNotify (SendEvent), so
    /// one is taken only when it answers the read under way exactly: this window, the selection,
    /// the target, the property and the time asked for; anything else is a forgery and ignored.
    /// (X11 cannot authenticate a SendEvent: a client that watches this window's events could still
    /// copy the time — no more than it could do by owning the clipboard itself.)
    func selectionNotified(_ notify: xcb_selection_notify_event_t, nowMicros: UInt64, into results: inout [Event]) {
        guard notify.requestor == window, let selection = atoms.selection(named: notify.selection), let read = reads[selection],
              case .converting(let target) = read.stage, notify.target == target, notify.time == read.time,
              notify.property == 0 || notify.property == read.property else {
            forgedNotifications += 1
            return
        }
        guard notify.property != 0 else {
            // Refused: an owner without UTF8_STRING may still have Latin-1 STRING (old clients).
            if target == atoms.utf8String {
                convert(selection, to: atoms.string, into: read.property, time: read.time, started: read.started, nowMicros: nowMicros)
            } else {
                finish(selection, .readFailed(selection, reason: "its owner offers no text"), into: &results)
            }
            return
        }
        switch fetch(property: read.property, selection: selection) {
        case .failure(let failure):
            finish(selection, .readFailed(selection, reason: failure.reason), into: &results)
        case .success(let (type, bytes)):
            if type == atoms.incr {
                // The value is a lower bound on the size; deleting the property (done by fetch)
                // tells the owner to send the first part.
                let announced = bytes.count >= 4 ? bytes.withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) } : 0
                if announced > maximumBytes {
                    finish(selection, .readFailed(selection, reason: "it holds \(announced) bytes, more than the \(maximumBytes) shared"),
                           into: &results)
                } else {
                    var incremental = read
                    incremental.stage = .incremental(received: [], isLatin1: target == atoms.string)
                    incremental.since = nowMicros
                    reads[selection] = incremental
                }
            } else {
                // The property's type says the encoding, whatever was asked for: owners such as
                // xclip -target STRING answer a UTF8_STRING request with Latin-1 typed STRING.
                deliver(selection, bytes, isLatin1: type == atoms.string, incremental: false, into: &results)
            }
        }
    }

    func incrementalPartArrived(_ property: xcb_atom_t, nowMicros: UInt64, into results: inout [Event]) {
        guard let selection = reads.first(where: { $0.value.property == property })?.key,
              case .incremental = reads[selection]?.stage, var read = reads.removeValue(forKey: selection),
              case .incremental(var received, let isLatin1) = read.stage else { return }
        // The buffer's only owner from here on, so appending a part does not copy it each time.
        read.stage = .converting(target: 0)
        reads[selection] = read
        switch fetch(property: property, selection: selection) {
        case .failure(let failure):
            finish(selection, .readFailed(selection, reason: failure.reason), into: &results)
        case .success(let (type, bytes)):
            if bytes.isEmpty {
                noteIncrementalRead()
                deliver(selection, received, isLatin1: isLatin1 || type == atoms.string, incremental: true, into: &results)
            } else if received.count + bytes.count > maximumBytes {
                finish(selection, .readFailed(selection, reason: "it holds more than the \(maximumBytes) bytes shared"), into: &results)
            } else {
                received += bytes
                read.stage = .incremental(received: received, isLatin1: isLatin1 || type == atoms.string)
                read.since = nowMicros
                reads[selection] = read
            }
        }
    }

    /// The text read, as UTF-8; Latin-1 converted, and refused when that makes it too long.
    private func deliver(_ selection: Selection, _ bytes: [UInt8], isLatin1: Bool, incremental: Bool, into results: inout [Event]) {
        let text = isLatin1 ? Self.utf8(latin1: bytes) : bytes
        guard text.count <= maximumBytes else {
            finish(selection, .readFailed(selection, reason: "as UTF-8 it holds \(text.count) bytes, more than the \(maximumBytes) shared"),
                   into: &results)
            return
        }
        finish(selection, .readFinished(selection, text: text, incremental: incremental), into: &results)
    }

    /// Reads and deletes a property of this client's window, refusing values over the limit
    /// before they are copied.
    private func fetch(property: xcb_atom_t, selection: Selection) -> Result<(xcb_atom_t, [UInt8]), ReadFailure> {
        let raw = connection.handle.raw
        // In 4-byte units: one more than the limit holds, so a larger value shows as bytes_after.
        let longLength = UInt32(maximumBytes / 4 + 2)
        do {
            return .success(try withXCBReply(on: connection.handle, request: "GetProperty for \(selection)", { error in
                xcb_get_property_reply(raw, xcb_get_property(raw, 1, window, property, xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), 0,
                                                             longLength), error)
            }) { (reply) throws(X11Error) -> (xcb_atom_t, [UInt8]) in
                let length = Int(xcb_get_property_value_length(reply))
                guard reply.pointee.bytes_after == 0, length <= maximumBytes else {
                    throw X11Error(.invalidInput, "it holds more than the \(maximumBytes) bytes shared")
                }
                guard reply.pointee.type == atoms.incr || reply.pointee.format == 8 else {
                    throw X11Error(.invalidInput, "its owner sent \(reply.pointee.format)-bit data, not text")
                }
                let start = xcb_get_property_value(reply)!.assumingMemoryBound(to: UInt8.self)
                return (reply.pointee.type, Array(UnsafeBufferPointer(start: start, count: length)))
            })
        } catch {
            return .failure(ReadFailure(error.message))
        }
    }

    struct ReadFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private func finish(_ selection: Selection, _ event: Event, into results: inout [Event]) {
        reads[selection] = nil
        results.append(event)
    }

    /// Stalled reads and INCR sends end here: no progress for `transferTimeoutMicros`, or a read
    /// still unfinished `readDeadlineMicros` after it began.
    func expireStalled(nowMicros: UInt64, into results: inout [Event]) {
        for (selection, read) in reads {
            if nowMicros > read.since + transferTimeoutMicros {
                finish(selection, .readFailed(selection, reason: "its owner did not answer within \(transferTimeoutMicros / 1_000_000) s"),
                       into: &results)
            } else if nowMicros > read.started + readDeadlineMicros {
                finish(selection, .readFailed(selection, reason: "its owner did not finish sending within \(readDeadlineMicros / 1_000_000) s"),
                       into: &results)
            }
        }
        expireTransfers(nowMicros: nowMicros)
    }

    /// Whether a read is under way (it expires on a timer, so the caller wakes for it).
    public var hasReads: Bool { !reads.isEmpty }

    /// ISO 8859-1 bytes (X's `STRING`) as UTF-8.
    static func utf8(latin1 bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte < 0x80 { out.append(byte) } else { out += [0xC0 | byte >> 6, 0x80 | byte & 0x3F] }
        }
        return out
    }
}
