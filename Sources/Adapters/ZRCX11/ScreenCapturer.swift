internal import CXCB
internal import Glibc
public import Logging
public import ZRCProtocol

/// Captures rectangles of the root window as BGRX pixels, through MIT-SHM when the server allows
/// it and through core GetImage otherwise.
///
/// The shared-memory segment holds a band of whole screen rows (about 1 MiB; a larger area is read
/// band by band), is private to this user (mode 0600) and is already marked for removal while in
/// use (see `SharedMemorySegment`). A band rather than the whole screen keeps 6 MB of a 1080p
/// screen (and 31 of a 4K one) out of the host's memory for one more round trip per 1 MiB read. When MIT-SHM is missing,
/// turned off, or fails (on setup or on a capture), the capturer logs why and uses GetImage from
/// then on; `method` and `fallbackReason` tell which is in use.
///
/// Not Sendable: captures write into the one segment, so they must not overlap. Keep a capturer in
/// one task or actor; the `X11Connection` itself can be shared.
public final class ScreenCapturer {
    public let connection: X11Connection
    public private(set) var method: CaptureMethod
    /// Why GetImage is used instead of MIT-SHM; nil while MIT-SHM is in use.
    public private(set) var fallbackReason: String?

    private var segment: SharedMemorySegment?
    private let logger: Logger
    /// The shared-memory segment's size, about: a band of rows of this many bytes.
    static let segmentBytes = 1 << 19

    /// - Parameters:
    ///   - useSharedMemory: false forces GetImage (for tests, or X servers where MIT-SHM misbehaves).
    /// - Throws: `X11Error.Kind.unsupportedScreen` when the screen's pixels are not BGRX.
    public init(connection: X11Connection, useSharedMemory: Bool = true,
                logger: Logger = Logger(label: "zrc.x11.capture")) throws(X11Error) {
        let screen = connection.screen
        guard screen.isBGRX else {
            throw X11Error(.unsupportedScreen,
                           "screen \(screen.number) of display \"\(connection.displayName)\" has depth \(screen.depth) at \(screen.bitsPerPixel) bits per pixel, not the 24-bit BGRX layout ZRC captures; run the X server at depth 24")
        }
        self.connection = connection
        self.logger = logger
        method = .getImage
        if !useSharedMemory {
            fallBack("MIT-SHM was turned off by the caller", level: .notice)
        } else if !connection.has(.sharedMemory) {
            fallBack("the X server does not offer the MIT-SHM extension")
        } else {
            do {
                let rows = min(screen.height, max(1, Self.segmentBytes / (screen.width * 4)))
                segment = try SharedMemorySegment(connection: connection.handle, byteCount: screen.width * rows * 4)
                method = .sharedMemory
            } catch {
                fallBack(error.message)
            }
        }
    }

    /// Whether captures go through MIT-SHM.
    public var isUsingSharedMemory: Bool { method == .sharedMemory }

    /// The System V id of the shared-memory segment while MIT-SHM is in use (what `ipcs -m`
    /// lists), for diagnostics.
    public var sharedMemorySegmentID: Int32? { segment?.systemID }

    /// Captures `rect` of the root window into `destination`: row `r` goes to
    /// `destination[r * bytesPerRow ..< r * bytesPerRow + rect.width * 4]`, so the destination can
    /// be a window into a larger framebuffer. Bytes between rows are left alone.
    public func capture(_ rect: PixelRect, into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int) throws(X11Error) {
        let screen = connection.screen
        guard rect.fits(screenWidth: screen.width, screenHeight: screen.height) else {
            throw X11Error(.invalidRectangle, "cannot capture \(rect): it is empty or not inside the \(screen.width)x\(screen.height) screen")
        }
        let rowBytes = rect.width * 4
        guard bytesPerRow >= rowBytes, destination.count >= (rect.height - 1) * bytesPerRow + rowBytes,
              let target = destination.baseAddress else {
            throw X11Error(.invalidRectangle,
                           "a \(destination.count)-byte buffer with \(bytesPerRow) bytes per row cannot hold a capture of \(rect)")
        }
        if let segment {
            do {
                try captureShared(rect, segment: segment, to: target, bytesPerRow: bytesPerRow)
                return
            } catch where error.kind == .requestFailed {
                // Who is at fault? If GetImage of the same rectangle fails too, the request itself
                // was bad (say the screen shrank under us): that error is thrown and MIT-SHM kept.
                // If GetImage works, MIT-SHM is what is broken here, so we stop using it.
                try captureCore(rect, to: target, bytesPerRow: bytesPerRow)
                self.segment = nil
                fallBack("MIT-SHM GetImage failed where GetImage works: \(error.message)")
                return
            }
        }
        try captureCore(rect, to: target, bytesPerRow: bytesPerRow)
    }

    /// Captures `rect` into a new image.
    public func capture(_ rect: PixelRect) throws(X11Error) -> CapturedImage {
        guard rect.width > 0, rect.height > 0, rect.width <= connection.screen.width, rect.height <= connection.screen.height else {
            throw X11Error(.invalidRectangle, "cannot capture \(rect): it is empty or larger than the screen")
        }
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        try pixels.withUnsafeMutableBytes { (bytes) in
            Result { () throws(X11Error) in try capture(rect, into: bytes, bytesPerRow: rect.width * 4) }
        }.get()
        return CapturedImage(width: rect.width, height: rect.height, pixels: pixels)
    }

    /// Captures the whole screen into a new image.
    public func captureScreen() throws(X11Error) -> CapturedImage {
        try capture(PixelRect(x: 0, y: 0, width: connection.screen.width, height: connection.screen.height))
    }

    private func captureShared(_ rect: PixelRect, segment: SharedMemorySegment,
                               to target: UnsafeMutableRawPointer, bytesPerRow: Int) throws(X11Error) {
        let rowsPerBand = max(1, segment.byteCount / (rect.width * 4))
        var top = 0
        while top < rect.height {
            let band = PixelRect(x: rect.x, y: rect.y + top, width: rect.width, height: min(rowsPerBand, rect.height - top))
            try captureBand(band, segment: segment, to: target + top * bytesPerRow, bytesPerRow: bytesPerRow)
            top += band.height
        }
    }

    /// One band that fits the segment.
    private func captureBand(_ rect: PixelRect, segment: SharedMemorySegment,
                             to target: UnsafeMutableRawPointer, bytesPerRow: Int) throws(X11Error) {
        let raw = connection.handle.raw
        let expected = rect.width * rect.height * 4
        try withXCBReply(on: connection.handle, request: "MIT-SHM GetImage of \(rect)", { error in
            let cookie = xcb_shm_get_image(raw, connection.screen.rootWindow, Int16(rect.x), Int16(rect.y),
                                           UInt16(rect.width), UInt16(rect.height), UInt32.max,
                                           UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), segment.serverID, 0)
            return xcb_shm_get_image_reply(raw, cookie, error)
        }) { (reply) throws(X11Error) in
            guard Int(reply.pointee.size) == expected else {
                throw X11Error(.requestFailed, "MIT-SHM GetImage of \(rect) produced \(reply.pointee.size) bytes, expected \(expected)")
            }
        }
        // The reply arrived, so the server has finished writing the segment.
        copyRows(from: UnsafeRawPointer(segment.address), rect: rect, to: target, bytesPerRow: bytesPerRow)
    }

    private func captureCore(_ rect: PixelRect, to target: UnsafeMutableRawPointer, bytesPerRow: Int) throws(X11Error) {
        let raw = connection.handle.raw
        let expected = rect.width * rect.height * 4
        try withXCBReply(on: connection.handle, request: "GetImage of \(rect)", { error in
            let cookie = xcb_get_image(raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), connection.screen.rootWindow,
                                       Int16(rect.x), Int16(rect.y), UInt16(rect.width), UInt16(rect.height), UInt32.max)
            return xcb_get_image_reply(raw, cookie, error)
        }) { (reply) throws(X11Error) in
            let length = Int(xcb_get_image_data_length(reply))
            guard length == expected, let data = xcb_get_image_data(reply) else {
                throw X11Error(.requestFailed, "GetImage of \(rect) produced \(length) bytes, expected \(expected)")
            }
            copyRows(from: UnsafeRawPointer(data), rect: rect, to: target, bytesPerRow: bytesPerRow)
        }
    }

    /// Both methods deliver rows packed at width × 4 bytes (32 bits per pixel, 32-bit scanline pad).
    private func copyRows(from source: UnsafeRawPointer, rect: PixelRect, to target: UnsafeMutableRawPointer, bytesPerRow: Int) {
        let rowBytes = rect.width * 4
        if bytesPerRow == rowBytes {
            target.copyMemory(from: source, byteCount: rowBytes * rect.height)
            return
        }
        for row in 0..<rect.height {
            (target + row * bytesPerRow).copyMemory(from: source + row * rowBytes, byteCount: rowBytes)
        }
    }

    /// A warning by default: losing MIT-SHM costs CPU and latency the user may want to fix.
    /// A caller's deliberate choice is only a notice.
    private func fallBack(_ reason: String, level: Logger.Level = .warning) {
        method = .getImage
        fallbackReason = reason
        logger.log(
            level: level,
            "Capturing with GetImage instead of MIT-SHM: \(reason). Every frame now travels through the X socket, which costs CPU and latency on large screens.",
            metadata: ["display": "\(connection.displayName)"])
    }
}
