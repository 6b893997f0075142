internal import CXCB
internal import Glibc

extension X11Clipboard {
    /// The atoms the selection protocols name, interned once (one round trip for all of them).
    struct Atoms {
        let clipboard, primary, targets, multiple, incr, utf8String, textPlainUTF8, text, string, atom: xcb_atom_t
        /// Where reads land on this client's window: `ZRC_SELECTION_0` … `_15`, taken in turn.
        let readProperties: [xcb_atom_t]

        init(connection: X11Connection) throws(X11Error) {
            let names = ["CLIPBOARD", "PRIMARY", "TARGETS", "MULTIPLE", "INCR", "UTF8_STRING", "text/plain;charset=utf-8", "TEXT",
                         "STRING", "ATOM"] + (0..<16).map { "ZRC_SELECTION_\($0)" }
            let raw = connection.handle.raw
            let cookies = names.map { name in xcb_intern_atom(raw, 0, UInt16(name.utf8.count), name) }
            var values: [xcb_atom_t] = []
            for (name, cookie) in zip(names, cookies) {
                let atom = try withXCBReply(on: connection.handle, request: "InternAtom \(name)", { error in
                    xcb_intern_atom_reply(raw, cookie, error)
                }) { reply in reply.pointee.atom }
                values.append(atom)
            }
            (clipboard, primary, targets, multiple, incr, utf8String, textPlainUTF8, text, string, atom) =
                (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8], values[9])
            readProperties = Array(values[10...])
        }

        func selection(_ selection: Selection) -> xcb_atom_t { selection == .clipboard ? clipboard : primary }

        func selection(named atom: xcb_atom_t) -> Selection? {
            switch atom {
            case clipboard: .clipboard
            case primary: .primary
            default: nil
            }
        }

    }
}
