import ZRCFrames
import ZRCProtocol

// Target `frame`: the controller's JPEG/rect path. The input is one application message; a
// frameUpdate (or a compactFrame that stands alone) is applied to a fresh compositor with the real libjpeg-turbo decoder, as a
// controller session does with every update a host sends.
// libjpeg-turbo itself is not instrumented (it is the system library): ASan sees its reads and
// writes only through the buffers Swift hands it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let update: FrameUpdate
    switch try? ZRCMessage.decode(fuzzInput(data, size)) {
    case .frameUpdate(let full)?:
        update = full
    case .compactFrame(let compact)?:
        // A session's first update: only a compact frame that stands alone expands.
        var context = CompactFrameContext()
        guard let expanded = try? context.expand(compact) else { return 0 }
        update = expanded
    default:
        return 0
    }
    var decoder: FrameCodec
    do {
        decoder = try FrameCodec()
    } catch {
        fatalError("libjpeg-turbo does not start: \(error)")
    }
    var compositor = FrameCompositor()
    do {
        try compositor.apply(update, decoder: &decoder)
    } catch {
        return 0
    }
    let framebuffer = compositor.framebuffer
    expect(framebuffer.width == Int(update.screenWidth) && framebuffer.height == Int(update.screenHeight),
           "a \(framebuffer.width)x\(framebuffer.height) framebuffer for a \(update.screenWidth)x\(update.screenHeight) screen")
    expect(framebuffer.bytes.count == framebuffer.height * framebuffer.bytesPerRow, "framebuffer size and bytes disagree")
    expect(compositor.version == 1 && compositor.lastFrameID == update.frameID, "the update was not recorded")
    return 0
}
