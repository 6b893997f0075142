import Testing
import ZRCProtocol
import ZRCViewer

/// Keys from any layout: the keysym is what the layout produced, a release lets go of what its
/// press sent, and nothing stays held.
@Suite struct BrowserKeyboardTests {
    func press(_ keyboard: inout BrowserKeyboard, _ key: String, _ code: String, _ modifiers: KeyModifiers = []) -> [InputEvent] {
        keyboard.translate(pressed: true, key: key, code: code, modifiers: modifiers)
    }

    func release(_ keyboard: inout BrowserKeyboard, _ key: String, _ code: String, _ modifiers: KeyModifiers = []) -> [InputEvent] {
        keyboard.translate(pressed: false, key: key, code: code, modifiers: modifiers)
    }

    @Test(arguments: [
        ("a", "KeyQ", UInt32(0x61), "AZERTY's a sits where QWERTY has q"),
        ("z", "KeyY", 0x7A, "QWERTZ"),
        ("€", "KeyE", 0x0100_20AC, "AltGr+E on a German layout"),
        ("é", "Digit2", 0xE9, "AZERTY's é: Latin-1 as itself"),
        ("日", "KeyA", 0x0100_65E5, "a CJK character"),
        ("Enter", "NumpadEnter", 0xFF8D, "the keypad's Enter"),
        ("Enter", "Enter", 0xFF0D, "Return"),
        ("F12", "F12", 0xFFC9, "a function key"),
        ("ArrowUp", "ArrowUp", 0xFF52, "an arrow"),
        ("Shift", "ShiftRight", 0xFFE2, "the right Shift"),
        ("Control", "ControlLeft", 0xFFE3, "the left Control"),
        ("AltGraph", "AltRight", 0xFE03, "AltGr is ISO level 3"),
        ("Meta", "MetaLeft", 0xFFEB, "the Super key"),
        ("1", "Numpad1", 0xFFB1, "a keypad digit"),
        (" ", "Space", 0x20, "space"),
        ("Unidentified", "KeyK", 0x6B, "a key the browser cannot name: its usual meaning"),
    ] as [(String, String, UInt32, String)])
    func keysymsFollowWhatTheLayoutProduced(key: String, code: String, keysym: UInt32, why: String) {
        #expect(BrowserKeyboard.keysym(key: key, code: code) == keysym, "\(why)")
    }

    @Test func aDeadKeySendsNothingAndItsCharacterComesWithTheNextKey() {
        var keyboard = BrowserKeyboard()
        #expect(press(&keyboard, "Dead", "BracketLeft").isEmpty)
        #expect(release(&keyboard, "Dead", "BracketLeft").isEmpty)
        #expect(press(&keyboard, "ê", "KeyE") == [.key(keysym: 0xEA, pressed: true, modifiers: [])])
        #expect(release(&keyboard, "e", "KeyE") == [.key(keysym: 0xEA, pressed: false, modifiers: [])])
    }

    @Test func aReleaseLetsGoOfWhatThePressSentEvenAfterShiftWasReleased() {
        var keyboard = BrowserKeyboard()
        _ = press(&keyboard, "Shift", "ShiftLeft", [.shift])
        #expect(press(&keyboard, "A", "KeyA", [.shift]) == [.key(keysym: 0x41, pressed: true, modifiers: [.shift])])
        _ = release(&keyboard, "Shift", "ShiftLeft")
        #expect(release(&keyboard, "a", "KeyA") == [.key(keysym: 0x41, pressed: false, modifiers: [])])
        #expect(keyboard.heldKeysyms.isEmpty)
    }

    @Test func aRepeatUnderAnotherShiftStateReleasesTheOldKeysymFirst() {
        var keyboard = BrowserKeyboard()
        _ = press(&keyboard, "a", "KeyA")
        #expect(press(&keyboard, "A", "KeyA", [.shift]) == [.key(keysym: 0x61, pressed: false, modifiers: [.shift]),
                                                          .key(keysym: 0x41, pressed: true, modifiers: [.shift])])
        #expect(keyboard.heldKeysyms == [0x41])
    }

    @Test func releaseAllLeavesNothingHeldAndAStrayReleaseSendsNothing() {
        var keyboard = BrowserKeyboard()
        _ = press(&keyboard, "Control", "ControlLeft", [.control])
        _ = press(&keyboard, "w", "KeyW", [.control])
        #expect(keyboard.releaseAll() == [.key(keysym: 0x77, pressed: false, modifiers: []), .key(keysym: 0xFFE3, pressed: false, modifiers: [])])
        #expect(keyboard.heldKeysyms.isEmpty)
        #expect(release(&keyboard, "w", "KeyW").isEmpty)
    }

    @Test func aPageCannotHoldMoreThanThirtyTwoKeys() {
        var keyboard = BrowserKeyboard()
        for index in 0..<100 { _ = press(&keyboard, "x", "Fake\(index)") }
        #expect(keyboard.heldKeysyms.count == BrowserKeyboard.maximumHeld)
    }
}
