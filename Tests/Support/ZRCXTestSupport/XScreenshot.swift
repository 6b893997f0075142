internal import CXCB
import Foundation

/// The whole screen of an X display, read with GetImage: what a person looking at it would see.
public struct XScreenshot: Sendable {
    public let width: Int
    public let height: Int
    /// BGRX, `width * 4` bytes per row.
    let bytes: [UInt8]

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        let connection = xcb_connect(display, &screenNumber)
        defer { xcb_disconnect(connection) }
        guard xcb_connection_has_error(connection) == 0, let screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data?.pointee
        else { throw TestFailure("cannot connect to \(display) for a screenshot") }
        guard screen.root_depth == 24 else { throw TestFailure("screenshots need a depth-24 screen, \(display) has \(screen.root_depth)") }
        width = Int(screen.width_in_pixels)
        height = Int(screen.height_in_pixels)
        let cookie = xcb_get_image(connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), screen.root, 0, 0, screen.width_in_pixels,
                                   screen.height_in_pixels, UInt32.max)
        guard let reply = xcb_get_image_reply(connection, cookie, nil) else { throw TestFailure("GetImage on \(display) failed") }
        defer { free(reply) }
        let length = Int(xcb_get_image_data_length(reply))
        guard length >= width * height * 4, let data = xcb_get_image_data(reply) else {
            throw TestFailure("GetImage on \(display) returned \(length) bytes for \(width)x\(height)")
        }
        bytes = Array(UnsafeBufferPointer(start: data, count: width * height * 4))
    }

    /// The pixel at (x, y) as 0xRRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        let offset = (y * width + x) * 4
        return UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
    }
}

extension XScreenshot {
    /// The screenshot as a binary PPM (P6), for looking at a failure.
    public func writePPM(to path: String) throws {
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height * 3)
        for index in stride(from: 0, to: width * height * 4, by: 4) {
            data.append(contentsOf: [bytes[index + 2], bytes[index + 1], bytes[index]])
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
