internal import CXCB
internal import Glibc
public import ZRCProtocol

/// Injects pointer and keyboard input into the X server with XTEST (through xcb-xtest).
///
/// It uses the same `X11Connection` as the capturer, so one socket carries both and the server
/// handles input and capture requests in the order they were sent; the XTest extension exists on
/// every Xorg and Xvfb server ZRC targets. Every request is checked (a round trip each), so an
/// error surfaces at the call that caused it; local round trips cost tens of microseconds, far
/// below human input rates.
///
/// Keys are given as X keysyms. A keysym the current layout lacks is bound to a spare keycode
/// (one with no keysyms at all, so no key of the user's layout changes), pressed there, and the
/// spare is cleared again later by `restoreKeyboardMapping(unusedFor:)`. A client looks a key up
/// in the mapping as it is when it *reads* the event, not as it was when the key was pressed
/// (xterm re-reads the whole keymap on every MappingNotify and falls behind while text is typed),
/// so a binding must outlive the key press by as long as a busy client may lag: a spare is
/// cleared only after it has been unused for `clientCatchUpTime`, and when every spare is taken,
/// the least recently used one is rebound only once it has been idle for `minimumRebindIdle`.
/// Restoring right after typing (what ending a session did) turned "héllo ✓ 日本語 €" into "héllo"
/// and blanks in xterm.
///
/// Not Sendable: it tracks which keys and buttons it holds so that `releaseAll()` can leave
/// nothing pressed when a session ends. Keep it in one task or actor.
public final class InputInjector {
    public let connection: X11Connection
    /// Keys pressed and not yet released, by keysym, with the keycode each was pressed on.
    public private(set) var heldKeys: [UInt32: UInt8] = [:]
    public private(set) var heldButtons: Set<Int> = []
    /// Spare keycodes bound to a keysym, least recently used first.
    private var boundSpares: [(keycode: UInt8, keysym: UInt32, lastUsed: ContinuousClock.Instant)] = []
    /// How long a bound spare stays bound after its last use: time for every client to have read
    /// the keys typed on it.
    public static let clientCatchUpTime: Duration = .seconds(5)
    /// A spare is rebound to another keysym (all spares taken) only after this much idleness, so
    /// a client still reading the previous key does not see the new keysym instead.
    public static let minimumRebindIdle: Duration = .milliseconds(150)

    /// - Throws: `.extensionMissing` when the server has no XTEST.
    public init(connection: X11Connection) throws(X11Error) {
        guard connection.has(.xtest) else {
            throw X11Error(.extensionMissing, "X display \"\(connection.displayName)\" does not offer the XTEST extension, which input injection needs")
        }
        self.connection = connection
    }

    deinit {
        // Best effort on an owner who forgot: never leave a key held or a spare bound. (The
        // owner is going, so waiting for slow clients is not an option here.)
        _ = try? releaseAll()
    }

    /// Spare keycodes currently bound to a keysym, keycode → keysym.
    public var spareBindings: [UInt8: UInt32] {
        Dictionary(uniqueKeysWithValues: boundSpares.map { ($0.keycode, $0.keysym) })
    }

    // MARK: Pointer

    /// Moves the pointer to (`x`, `y`) on the root window, in screen pixels.
    public func movePointer(x: Int, y: Int) throws(X11Error) {
        guard let x16 = Int16(exactly: x), let y16 = Int16(exactly: y) else {
            throw X11Error(.invalidInput, "pointer position \(x),\(y) is outside X's 16-bit coordinate range")
        }
        // detail 0: absolute coordinates relative to `root`.
        try fake(XCB_MOTION_NOTIFY, detail: 0, x: x16, y: y16, what: "pointer move to \(x),\(y)")
    }

    /// Presses or releases pointer button `number`: 1–3 left, middle, right; 4–7 scroll up, down,
    /// left, right.
    public func button(_ number: Int, pressed: Bool) throws(X11Error) {
        guard (1...9).contains(number) else {
            throw X11Error(.invalidInput, "pointer button \(number) is not one of 1…9")
        }
        if !pressed && !heldButtons.contains(number) { return }  // nothing of ours to release
        try fake(pressed ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE, detail: UInt8(number),
                 what: "button \(number) \(pressed ? "press" : "release")")
        if pressed { heldButtons.insert(number) } else { heldButtons.remove(number) }
    }

    /// Scrolls by whole steps: X reports a wheel step as a click of button 4 (up), 5 (down),
    /// 6 (left) or 7 (right). Positive `down` scrolls down, positive `right` scrolls right.
    public func scroll(down: Int = 0, right: Int = 0) throws(X11Error) {
        for (steps, negative, positive) in [(down, 4, 5), (right, 6, 7)] where steps != 0 {
            let button = steps < 0 ? negative : positive
            for _ in 0..<min(steps.magnitude, 100) {
                try self.button(button, pressed: true)
                try self.button(button, pressed: false)
            }
        }
    }

    // MARK: Keyboard

    /// Presses or releases the key for `keysym`. For a press, `modifiers` (and Shift when the
    /// keysym sits on the shifted level) are pressed just before it and released just after, so
    /// the application sees them in the press's state; modifiers the peer already holds are left
    /// alone. A release uses the keycode the press used, even if the mapping changed since, and
    /// is ignored for a key this injector does not hold.
    public func key(_ keysym: UInt32, pressed: Bool, modifiers: KeyModifiers = []) throws(X11Error) {
        if pressed {
            let (keycode, shifted) = try keycode(for: keysym)
            let extra = try pressModifiers(modifiers.union(shifted ? .shift : []))
            try fake(XCB_KEY_PRESS, detail: keycode, what: "press of keysym 0x\(String(keysym, radix: 16))")
            heldKeys[keysym] = keycode
            try releaseModifiers(extra)
        } else if let keycode = heldKeys[keysym] {
            try fake(XCB_KEY_RELEASE, detail: keycode, what: "release of keysym 0x\(String(keysym, radix: 16))")
            heldKeys[keysym] = nil
        }
    }

    /// Presses and releases the key for `keysym` with `modifiers` held around both.
    public func tap(_ keysym: UInt32, modifiers: KeyModifiers = []) throws(X11Error) {
        let (keycode, shifted) = try keycode(for: keysym)
        let extra = try pressModifiers(modifiers.union(shifted ? .shift : []))
        try fake(XCB_KEY_PRESS, detail: keycode, what: "press of keysym 0x\(String(keysym, radix: 16))")
        try fake(XCB_KEY_RELEASE, detail: keycode, what: "release of keysym 0x\(String(keysym, radix: 16))")
        try releaseModifiers(extra)
    }

    /// Types `text` one Unicode scalar at a time (see `Keysym.forCharacter`), binding spare
    /// keycodes for characters the layout lacks. Checks the whole text first, so a control
    /// character refuses it before anything is typed.
    public func typeText(_ text: String) throws(X11Error) {
        var keysyms: [UInt32] = []
        for scalar in text.unicodeScalars {
            guard let keysym = Keysym.forCharacter(scalar) else {
                throw X11Error(.invalidInput, "cannot type control character U+\(String(scalar.value, radix: 16, uppercase: true))")
            }
            keysyms.append(keysym)
        }
        for keysym in keysyms { try tap(keysym) }
    }

    /// Releases every key and button this injector holds, then clears all its spare keycodes at
    /// once. Tries everything even after a failure, and throws the first failure at the end. For
    /// shutting down; a session that ends uses `releaseHeld()` and a later
    /// `restoreKeyboardMapping(unusedFor:)`, so clients can still read what was typed.
    public func releaseAll() throws(X11Error) {
        var firstError: X11Error?
        do { try releaseHeld() } catch { firstError = error }
        do { try restoreKeyboardMapping(unusedFor: .zero) } catch { firstError = firstError ?? error }
        if let firstError { throw firstError }
    }

    /// Releases every key and button this injector holds; tries all, throws the first failure.
    public func releaseHeld() throws(X11Error) {
        var firstError: X11Error?
        for keysym in Array(heldKeys.keys) {
            do { try key(keysym, pressed: false) } catch { firstError = firstError ?? error; heldKeys[keysym] = nil }
        }
        for number in heldButtons.sorted() {
            do { try button(number, pressed: false) } catch { firstError = firstError ?? error; heldButtons.remove(number) }
        }
        if let firstError { throw firstError }
    }

    /// Clears the spare keycodes this injector bound that are not held and were last used at
    /// least `idle` before `now`, giving those keys back exactly as they were. Returns whether
    /// any spare is still bound (then call again later).
    @discardableResult
    public func restoreKeyboardMapping(unusedFor idle: Duration = clientCatchUpTime,
                                       now: ContinuousClock.Instant = .now) throws(X11Error) -> Bool {
        let held = Set(heldKeys.values)
        let due = boundSpares.filter { !held.contains($0.keycode) && now - $0.lastUsed >= idle }
        guard !due.isEmpty else { return !boundSpares.isEmpty }
        let mapping = try KeyboardMapping.read(connection.handle)
        for spare in due {
            try setKeysyms([], of: spare.keycode, mapping: mapping)
            boundSpares.removeAll { $0.keycode == spare.keycode }
        }
        return !boundSpares.isEmpty
    }

    // MARK: Internals

    /// Reads the mapping afresh on every key, because the user may switch layouts mid-session
    /// and this connection's MappingNotify events go to whoever reads its event queue. One
    /// round trip of a few kilobytes.
    private func keycode(for keysym: UInt32) throws(X11Error) -> (keycode: UInt8, shifted: Bool) {
        let mapping = try KeyboardMapping.read(connection.handle)
        if let found = mapping.keycode(for: keysym) {
            if let index = boundSpares.firstIndex(where: { $0.keycode == found.keycode }) {
                var spare = boundSpares.remove(at: index)
                spare.lastUsed = .now
                boundSpares.append(spare)  // most recently used now
            }
            return found
        }
        return (try bindSpare(keysym, mapping: mapping), false)
    }

    private func bindSpare(_ keysym: UInt32, mapping: KeyboardMapping) throws(X11Error) -> UInt8 {
        let held = Set(heldKeys.values)
        let keycode: UInt8
        if let free = mapping.spareKeycodes.first(where: { !held.contains($0) }) {
            keycode = free
        } else if let index = boundSpares.firstIndex(where: { !held.contains($0.keycode) }) {
            // Every spare is taken: give a client still reading the previous key on it time to.
            let idle = ContinuousClock.now - boundSpares[index].lastUsed
            if idle < Self.minimumRebindIdle {
                let wait = Self.minimumRebindIdle - idle
                usleep(UInt32(wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000))
            }
            keycode = boundSpares.remove(at: index).keycode
        } else {
            throw X11Error(.invalidInput, "no spare keycode to bind keysym 0x\(String(keysym, radix: 16)) to: every keycode has keysyms or is held down")
        }
        // Both levels: the key types the keysym whatever the Shift state.
        try setKeysyms([keysym, keysym], of: keycode, mapping: mapping)
        boundSpares.append((keycode, keysym, .now))
        // The checked request was a round trip, so the server has switched; reading back proves
        // it to us and lets the XKB layer (which rewrites the core row) have its say.
        let after = try KeyboardMapping.read(connection.handle)
        guard after.keycode(for: keysym)?.keycode == keycode else {
            throw X11Error(.requestFailed, "keycode \(keycode) does not type keysym 0x\(String(keysym, radix: 16)) after binding it (now \(Array(after.keysyms(of: keycode))))")
        }
        return keycode
    }

    /// Replaces the keysyms of one keycode (missing columns become NoSymbol).
    private func setKeysyms(_ row: [UInt32], of keycode: UInt8, mapping: KeyboardMapping) throws(X11Error) {
        let width = max(mapping.keysymsPerKeycode, row.count)
        let padded = row + Array(repeating: Keysym.noSymbol, count: width - row.count)
        let raw = connection.handle.raw
        try checkXCBRequest(on: connection.handle, request: "ChangeKeyboardMapping of keycode \(keycode)",
                            xcb_change_keyboard_mapping_checked(raw, 1, keycode, UInt8(width), padded))
    }

    /// Presses the modifier keys among `modifiers` that are not held already; returns their
    /// keycodes in press order, for `releaseModifiers`.
    private func pressModifiers(_ modifiers: KeyModifiers) throws(X11Error) -> [UInt8] {
        var pressed: [UInt8] = []
        for (modifier, keysym) in KeyModifiers.keys where modifiers.contains(modifier) && !isHeld(modifier) {
            let keycode = try keycode(for: keysym).keycode
            try fake(XCB_KEY_PRESS, detail: keycode, what: "press of modifier keysym 0x\(String(keysym, radix: 16))")
            pressed.append(keycode)
        }
        return pressed
    }

    private func releaseModifiers(_ keycodes: [UInt8]) throws(X11Error) {
        for keycode in keycodes.reversed() {
            try fake(XCB_KEY_RELEASE, detail: keycode, what: "release of modifier keycode \(keycode)")
        }
    }

    private func isHeld(_ modifier: KeyModifiers) -> Bool {
        let keysyms: [UInt32] = switch modifier {
        case .shift: [Keysym.shiftLeft, Keysym.shiftRight]
        case .control: [Keysym.controlLeft, Keysym.controlRight]
        case .alt: [Keysym.altLeft, Keysym.altRight]
        default: [Keysym.superLeft, Keysym.superRight]
        }
        return keysyms.contains { heldKeys[$0] != nil }
    }

    private func fake(_ type: Int32, detail: UInt8, x: Int16 = 0, y: Int16 = 0, what: String) throws(X11Error) {
        let raw = connection.handle.raw
        // time 0 = CurrentTime (now); device 0 = the core devices.
        try checkXCBRequest(on: connection.handle, request: "XTEST \(what)",
                            xcb_test_fake_input_checked(raw, UInt8(type), detail, 0, connection.screen.rootWindow, x, y, 0))
    }
}
