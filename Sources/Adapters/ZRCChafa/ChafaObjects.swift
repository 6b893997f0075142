internal import CChafa

// Small owners of libchafa's reference-counted objects: each holds one reference, taken at
// creation, and drops it in deinit. None is Sendable: libchafa objects are not documented as safe
// for concurrent use, and the renderer that owns them serialises all calls.

/// Owns a `ChafaCanvasConfig`.
final class ChafaCanvasConfigRef {
    let raw: OpaquePointer

    init() throws(ChafaError) {
        guard let raw = chafa_canvas_config_new() else {
            throw ChafaError(.libraryFailure, "libchafa could not create a canvas configuration")
        }
        self.raw = raw
    }

    deinit { chafa_canvas_config_unref(raw) }
}

/// Owns a `ChafaSymbolMap`.
final class ChafaSymbolMapRef {
    let raw: OpaquePointer

    init(tags: [ChafaSymbolTags]) throws(ChafaError) {
        guard let raw = chafa_symbol_map_new() else {
            throw ChafaError(.libraryFailure, "libchafa could not create a symbol map")
        }
        self.raw = raw
        let combined = tags.reduce(0) { $0 | $1.rawValue }
        chafa_symbol_map_add_by_tags(raw, ChafaSymbolTags(rawValue: combined))
    }

    deinit { chafa_symbol_map_unref(raw) }
}

/// Owns a `ChafaCanvas`. The canvas keeps its own copy of the configuration it was made from.
final class ChafaCanvasRef {
    let raw: OpaquePointer

    init(config: ChafaCanvasConfigRef) throws(ChafaError) {
        guard let raw = chafa_canvas_new(config.raw) else {
            throw ChafaError(.libraryFailure, "libchafa could not create a canvas")
        }
        self.raw = raw
    }

    deinit { chafa_canvas_unref(raw) }
}

/// Owns a `ChafaTermInfo`: the escape sequences used to print a canvas.
///
/// It is libchafa's fallback description, which knows every sequence libchafa can emit (24-bit
/// colour, sixel, …). The renderer's mode decides what is drawn, so the output depends on what the
/// caller asked for, not on the `TERM` of whichever process happens to render (the controller
/// detects the terminal's abilities itself).
final class ChafaTermInfoRef {
    let raw: OpaquePointer

    init() throws(ChafaError) {
        // chafa_term_db_get_default returns a shared database we do not own (no unref);
        // get_fallback_info returns a new reference that we do own.
        guard let database = chafa_term_db_get_default(), let raw = chafa_term_db_get_fallback_info(database) else {
            throw ChafaError(.libraryFailure, "libchafa could not provide terminal escape sequences")
        }
        self.raw = raw
    }

    deinit { chafa_term_info_unref(raw) }
}
