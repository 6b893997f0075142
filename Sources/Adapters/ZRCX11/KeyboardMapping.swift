internal import CXCB

/// A snapshot of the server's core keyboard mapping: for each keycode from `minKeycode` to
/// `maxKeycode`, `keysymsPerKeycode` keysyms (column 0 unshifted, column 1 shifted, further
/// columns other groups). Read with one GetKeyboardMapping request.
public struct KeyboardMapping: Sendable, Hashable {
    public let minKeycode: UInt8
    public let maxKeycode: UInt8
    public let keysymsPerKeycode: Int
    /// Row-major: keycode `k`'s keysyms start at `(k - minKeycode) * keysymsPerKeycode`.
    public let keysyms: [UInt32]

    /// Reads the whole mapping from the server.
    public static func read(from connection: X11Connection) throws(X11Error) -> KeyboardMapping {
        try read(connection.handle)
    }

    static func read(_ handle: XCBConnectionHandle) throws(X11Error) -> KeyboardMapping {
        // Non-nil for a connection that was healthy at init (see X11Connection.readScreen).
        let setup = xcb_get_setup(handle.raw)!.pointee
        let first = setup.min_keycode, last = setup.max_keycode
        return try withXCBReply(on: handle, request: "GetKeyboardMapping", { error in
            xcb_get_keyboard_mapping_reply(handle.raw, xcb_get_keyboard_mapping(handle.raw, first, last - first + 1), error)
        }) { (reply) throws(X11Error) in
            let perKeycode = Int(reply.pointee.keysyms_per_keycode)
            let count = Int(xcb_get_keyboard_mapping_keysyms_length(reply))
            guard perKeycode > 0, count == perKeycode * (Int(last) - Int(first) + 1),
                  let start = xcb_get_keyboard_mapping_keysyms(reply) else {
                throw X11Error(.requestFailed, "GetKeyboardMapping returned \(count) keysyms at \(perKeycode) per keycode for keycodes \(first)…\(last)")
            }
            return KeyboardMapping(minKeycode: first, maxKeycode: last, keysymsPerKeycode: perKeycode,
                                   keysyms: Array(UnsafeBufferPointer(start: start, count: count)))
        }
    }

    /// The keysyms of `keycode` (empty outside the range).
    public func keysyms(of keycode: UInt8) -> ArraySlice<UInt32> {
        guard keycode >= minKeycode, keycode <= maxKeycode else { return [] }
        let start = Int(keycode - minKeycode) * keysymsPerKeycode
        return keysyms[start..<(start + keysymsPerKeycode)]
    }

    /// The keysym a key event with `keycode` produces at shift level 0 or 1, as a client without
    /// XKB would read it (a NoSymbol shifted slot falls back to the unshifted keysym).
    public func keysym(of keycode: UInt8, shifted: Bool) -> UInt32 {
        let row = keysyms(of: keycode)
        guard let unshifted = row.first else { return Keysym.noSymbol }
        let second = row.dropFirst().first ?? Keysym.noSymbol
        return shifted && second != Keysym.noSymbol ? second : unshifted
    }

    /// A keycode that types `keysym` in group 1, and whether Shift is needed (column 1). The
    /// unshifted column wins, then the lowest keycode, so the choice is stable.
    func keycode(for keysym: UInt32) -> (keycode: UInt8, shifted: Bool)? {
        let wanted = [keysym] + (Keysym.alternative(of: keysym).map { [$0] } ?? [])
        for column in 0..<min(2, keysymsPerKeycode) {
            for keycode in minKeycode...maxKeycode where wanted.contains(keysyms(of: keycode)[keysyms(of: keycode).startIndex + column]) {
                return (keycode, column == 1)
            }
        }
        return nil
    }

    /// Keycodes with no keysym at all: spare keys ZRC may bind a keysym to and later clear again
    /// without touching any key the user's layout uses. Xvfb leaves, among others, 248 free.
    var spareKeycodes: [UInt8] {
        (minKeycode...maxKeycode).filter { keysyms(of: $0).allSatisfy { $0 == Keysym.noSymbol } }
    }
}
