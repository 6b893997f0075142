internal import CChafa

/// Turns pixel buffers into text that draws them in a terminal, with libchafa: coloured Unicode
/// blocks in 24-bit colour in symbol mode, DEC sixel graphics (fixed 240-colour palette) in sixel mode.
///
/// The grid (columns × rows) and the mode are fixed at creation; the canvas is reused for every
/// frame. Output is what libchafa prints: in symbol mode `rows` lines separated by newlines, with
/// no cursor movement, so the caller positions the cursor first; in sixel mode one DCS sequence.
///
/// Not Sendable: each render redraws the one canvas. Keep a renderer in one task or actor.
public final class TerminalImageRenderer {
    /// Largest grid accepted on either side: far beyond any real terminal, and small enough that a
    /// canvas's memory (a few bytes per cell, 8 × 8 pixels per cell in symbol mode) stays bounded.
    public static let maximumCells = 2000

    public let columns: Int
    public let rows: Int
    public let mode: TerminalGraphicsMode
    /// Pixel size of one terminal cell; sixel mode draws `columns × cellWidth` by
    /// `rows × cellHeight` pixels (rounded down to whole sixel bands).
    public let cellWidth: Int
    public let cellHeight: Int

    private let canvas: ChafaCanvasRef
    private let termInfo: ChafaTermInfoRef
    /// Reused copy of BGRX input with the padding byte set to 255; see `render`.
    private var opaqueScratch: [UInt8] = []

    /// - Parameters:
    ///   - cellWidth, cellHeight: the terminal's cell size in pixels (from `TIOCGWINSZ` or the
    ///     XTWINOPS reply); only sixel mode uses it. 10 × 20 is a common default.
    public init(columns: Int, rows: Int, mode: TerminalGraphicsMode,
                cellWidth: Int = 10, cellHeight: Int = 20) throws(ChafaError) {
        let limit = Self.maximumCells
        guard (1...limit).contains(columns), (1...limit).contains(rows) else {
            throw ChafaError(.invalidArgument, "a terminal grid of \(columns)x\(rows) cells is outside 1…\(limit) on a side")
        }
        guard (1...256).contains(cellWidth), (1...256).contains(cellHeight) else {
            throw ChafaError(.invalidArgument, "a cell of \(cellWidth)x\(cellHeight) pixels is outside 1…256 on a side")
        }
        self.columns = columns
        self.rows = rows
        self.mode = mode
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight

        let config = try ChafaCanvasConfigRef()
        chafa_canvas_config_set_geometry(config.raw, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config.raw, Int32(cellWidth), Int32(cellHeight))
        switch mode {
        case .symbols(let symbols):
            chafa_canvas_config_set_canvas_mode(config.raw, CHAFA_CANVAS_MODE_TRUECOLOR)
            chafa_canvas_config_set_pixel_mode(config.raw, CHAFA_PIXEL_MODE_SYMBOLS)
            let shapes: ChafaSymbolTags = switch symbols {
            case .halfBlocks: CHAFA_SYMBOL_TAG_VHALF
            case .blocks: CHAFA_SYMBOL_TAG_BLOCK
            }
            // The canvas copies the map, so ours can go when this scope ends.
            let map = try ChafaSymbolMapRef(tags: [CHAFA_SYMBOL_TAG_SPACE, CHAFA_SYMBOL_TAG_SOLID, shapes])
            chafa_canvas_config_set_symbol_map(config.raw, map.raw)
        case .sixel:
            // A fixed palette of 240 colours (a colour cube and greys): choosing a palette per
            // frame costs libchafa about 3.5 times as long (210 ms instead of 58 ms for a
            // 2000x1180 frame here), too slow for a live screen.
            chafa_canvas_config_set_canvas_mode(config.raw, CHAFA_CANVAS_MODE_INDEXED_240)
            chafa_canvas_config_set_pixel_mode(config.raw, CHAFA_PIXEL_MODE_SIXELS)
        }
        // The canvas copies the configuration, so ours is released when init returns.
        canvas = try ChafaCanvasRef(config: config)
        termInfo = try ChafaTermInfoRef()
    }

    /// Renders `pixels` (`width` × `height`, `bytesPerRow` bytes from one row to the next), scaled
    /// to fill the whole grid, and returns the terminal output.
    public func render(
        pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, format: TerminalPixelFormat
    ) throws(ChafaError) -> String {
        guard width > 0, height > 0, width <= 32767, height <= 32767 else {
            throw ChafaError(.invalidArgument, "cannot render a \(width)x\(height) image (each side must be 1…32767)")
        }
        let rowBytes = width * 4
        guard bytesPerRow >= rowBytes, bytesPerRow <= Int(Int32.max),
              pixels.count >= (height - 1) * bytesPerRow + rowBytes, let base = pixels.baseAddress else {
            throw ChafaError(.invalidArgument,
                             "a \(pixels.count)-byte buffer with \(bytesPerRow) bytes per row cannot hold a \(width)x\(height) image")
        }
        switch format {
        case .rgba:
            draw(base, width: width, height: height, bytesPerRow: bytesPerRow, type: CHAFA_PIXEL_RGBA8_UNASSOCIATED)
        case .bgrx:
            // libchafa has no pixel type with a padding byte: given BGRA it would treat the padding
            // as alpha and fade or drop those pixels (an X server's padding is often 0). So the
            // pixels are copied once with an opaque alpha; the copy is small next to libchafa's own
            // scaling pass.
            makeOpaqueCopy(of: base, width: width, height: height, bytesPerRow: bytesPerRow)
            opaqueScratch.withUnsafeBytes { copy in
                draw(copy.baseAddress!, width: width, height: height, bytesPerRow: rowBytes, type: CHAFA_PIXEL_BGRA8_UNASSOCIATED)
            }
        }
        return try printCanvas()
    }

    /// Renders pixels held in an array; see `render(pixels:width:height:bytesPerRow:format:)`.
    public func render(
        pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int, format: TerminalPixelFormat
    ) throws(ChafaError) -> String {
        try pixels.withUnsafeBytes { bytes in
            Result { () throws(ChafaError) in
                try render(pixels: bytes, width: width, height: height, bytesPerRow: bytesPerRow, format: format)
            }
        }.get()
    }

    private func draw(_ base: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, type: ChafaPixelType) {
        chafa_canvas_draw_all_pixels(canvas.raw, type, base.assumingMemoryBound(to: UInt8.self),
                                     Int32(width), Int32(height), Int32(bytesPerRow))
    }

    private func makeOpaqueCopy(of base: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int) {
        let rowBytes = width * 4
        let count = rowBytes * height
        if opaqueScratch.count != count { opaqueScratch = [UInt8](repeating: 0, count: count) }
        opaqueScratch.withUnsafeMutableBytes { target in
            for row in 0..<height {
                let source = base + row * bytesPerRow
                let destination = target.baseAddress! + row * rowBytes
                destination.copyMemory(from: source, byteCount: rowBytes)
            }
            for alpha in stride(from: 3, to: count, by: 4) { target[alpha] = 0xFF }
        }
    }

    /// Prints the canvas with our escape sequences and frees libchafa's GString.
    private func printCanvas() throws(ChafaError) -> String {
        guard let printed = chafa_canvas_print(canvas.raw, termInfo.raw) else {
            throw ChafaError(.libraryFailure, "libchafa printed nothing for a \(columns)x\(rows) \(mode) canvas")
        }
        defer {
            // TRUE frees the character data too; the returned pointer is then NULL.
            _ = g_string_free(printed, 1)
        }
        guard let text = printed.pointee.str else { return "" }
        let bytes = UnsafeRawBufferPointer(start: text, count: Int(printed.pointee.len))
        return String(decoding: bytes, as: UTF8.self)
    }
}
