public import ArgumentParser
import ZRCChafa
import ZRCProtocol
import ZRCViewer

/// The terminal a benchmark's controller pretends to show the screen in: with `--terminal`, it asks
/// the host for the picture `zrc-ctl view` would ask for in such a terminal (the same layout,
/// renderer cell sampling and viewport code), instead of every pixel.
struct TerminalViewOptions: ParsableArguments {
    @Option(help: "Show the screen as `zrc-ctl view` would in a terminal of COLUMNSxROWS cells (default: receive every pixel).")
    var terminal: String?

    @Option(help: "The terminal's cell size in pixels, WIDTHxHEIGHT (with --terminal).")
    var cell = "10x20"

    @Option(help: "The renderer whose sampling decides the picture size: kitty, sixel or symbols (with --terminal).")
    var renderer: RendererKind = .kitty

    func validate() throws {
        if let terminal, Self.pair(terminal, in: 2...1000) == nil { throw ValidationError("--terminal must look like 200x60") }
        guard Self.pair(cell, in: 1...200) != nil else { throw ValidationError("--cell must look like 10x20") }
    }

    private static func pair(_ text: String, in range: ClosedRange<Int>) -> (Int, Int)? {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, range.contains(parts[0]), range.contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// The picture request for a screen of this size, nil for every pixel.
    func pictureRequest(screenWidth: Int, screenHeight: Int) throws -> PictureRequest? {
        guard let terminal, let (columns, rows) = Self.pair(terminal, in: 2...1000), let (cellWidth, cellHeight) = Self.pair(cell, in: 1...200)
        else { return nil }
        let sampling: any TerminalRenderer =
            switch renderer {
            case .kitty: KittyRenderer(partialUpdates: true, sharedMemory: nil)
            case .sixel: ChafaSixelRenderer()
            case .symbols: ChafaSymbolsRenderer()
            }
        let layout = ViewerLayout(columns: columns, rows: rows, reportedCell: (cellWidth, cellHeight), windowPixels: (0, 0))
        let area = layout.area(pixelsPerCell: sampling.pixelsPerCell(cellWidth: cellWidth, cellHeight: cellHeight))
        return Viewport(remoteWidth: screenWidth, remoteHeight: screenHeight, areaWidth: area.pixelWidth, areaHeight: area.pixelHeight)
            .pictureRequest
    }

    /// How the figures were taken, for the report.
    func describe(_ request: PictureRequest?) -> String {
        guard let terminal, let request else { return "every pixel (full resolution)" }
        return "a \(terminal)-cell terminal of \(cell)-px cells with \(renderer): pictures of at most \(request.maxWidth)x\(request.maxHeight)"
    }
}
extension RendererKind: ExpressibleByArgument {}
