import Testing
import ZRCProtocol

@Suite struct KeyComboTests {
    @Test(arguments: [
        ("ctrl+alt+t", UInt32(0x74), KeyModifiers([.control, .alt])),
        ("Return", 0xFF0D, []),
        ("shift+F5", 0xFFC2, [.shift]),
        ("super+A", 0x61, [.super]),
        ("ctrl+plus+", 0, []),
        ("é", 0xE9, []),
        ("✓", 0x0100_2713, []),
        ("Control + Escape", 0xFF1B, [.control]),
    ] as [(String, UInt32, KeyModifiers)])
    func combinationsParse(text: String, keysym: UInt32, modifiers: KeyModifiers) throws {
        if keysym == 0 {
            #expect(throws: WireError.self) { try KeyCombo(parsing: text) }
        } else {
            #expect(try KeyCombo(parsing: text) == KeyCombo(keysym: keysym, modifiers: modifiers))
        }
    }

    @Test(arguments: ["", "+", "ctrl+", "hyper+a", "ctrl+NoSuchKey", "F25"])
    func nonsenseIsRefusedWithAMessage(text: String) {
        let error = #expect(throws: WireError.self) { try KeyCombo(parsing: text) }
        #expect(error?.message.contains("`") == true)
    }
}
