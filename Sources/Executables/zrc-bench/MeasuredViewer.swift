import ZRCControllerKit
import ZRCProtocol
import ZRCFrames

/// What the laboratory's controller measures through, so ZRC and the VNC servers are measured by
/// the same code: a picture with versions and decode times, clicks, and the bytes received.
protocol MeasuredViewer: Sendable {
    /// The newest picture if it is newer than `version`: its version, when it was decoded
    /// (monotonic µs) and its pixel at (x, y) as 0x00RRGGBB.
    func probe(newerThan version: UInt64, x: Int, y: Int) async -> (version: UInt64, decodedMicros: UInt64, rgb: UInt32)?
    /// `PixelHash` of the newest picture if it is newer than `version`.
    func hash(newerThan version: UInt64) async -> (version: UInt64, decodedMicros: UInt64, value: UInt64)?
    /// A left click (press and release) at (x, y) in screen pixels.
    func click(x: Int, y: Int) async throws
    /// The newest picture (nil before the first).
    func picture() async -> PixelBuffer?
    /// The JPEG quality of the newest update if it is newer than `version` (0: no JPEG in it; nil
    /// for a viewer that does not know it).
    func quality(newerThan version: UInt64) async -> (version: UInt64, quality: Int)?
    /// Bytes received from the server so far, and updates drawn.
    func counters() async -> (bytes: Int, updates: UInt64)
    /// The host's own view of the link (ZRC only).
    func linkStats() async -> LinkStats?
    /// Why the connection is gone, once it is.
    func failure() async -> String?
    /// The picture's size once the first one is drawn.
    func size() async -> (width: Int, height: Int)?
}

/// ZRC's controller session as a measured viewer.
struct ZRCMeasuredViewer: MeasuredViewer {
    let session: ControllerSession

    func probe(newerThan version: UInt64, x: Int, y: Int) async -> (version: UInt64, decodedMicros: UInt64, rgb: UInt32)? {
        guard let frame = await session.pollFrame(newerThan: version) else { return nil }
        return (frame.version, frame.decodedMicros, frame.pixels.pixel(x: x, y: y))
    }

    func hash(newerThan version: UInt64) async -> (version: UInt64, decodedMicros: UInt64, value: UInt64)? {
        guard let frame = await session.pollFrame(newerThan: version) else { return nil }
        return (frame.version, frame.decodedMicros, PixelHash.of(frame.pixels))
    }

    func click(x: Int, y: Int) async throws {
        try await session.send(.input(.button(1, pressed: true, x: Int32(x), y: Int32(y))))
        try await session.send(.input(.button(1, pressed: false, x: Int32(x), y: Int32(y))))
    }

    func picture() async -> PixelBuffer? { await session.pollFrame()?.pixels }

    func quality(newerThan version: UInt64) async -> (version: UInt64, quality: Int)? {
        guard let frame = await session.pollFrame(newerThan: version) else { return nil }
        return (frame.version, frame.quality)
    }

    func counters() async -> (bytes: Int, updates: UInt64) {
        (await session.receivedBytes(), await session.pollFrame()?.version ?? 0)
    }

    func linkStats() async -> LinkStats? { await session.linkStats }

    func failure() async -> String? { await session.end.map { "the session ended: \($0)" } }

    func size() async -> (width: Int, height: Int)? {
        guard let frame = await session.pollFrame() else { return nil }
        return (frame.pixels.width, frame.pixels.height)
    }
}

/// The benchmark's RFB client as a measured viewer.
struct VNCMeasuredViewer: MeasuredViewer {
    let viewer: RFBViewer

    func probe(newerThan version: UInt64, x: Int, y: Int) async -> (version: UInt64, decodedMicros: UInt64, rgb: UInt32)? {
        guard let sample = viewer.pixel(x: x, y: y), sample.version > version else { return nil }
        return sample
    }

    func hash(newerThan version: UInt64) async -> (version: UInt64, decodedMicros: UInt64, value: UInt64)? {
        guard let hash = viewer.newestHash(), hash.version > version else { return nil }
        return hash
    }

    func click(x: Int, y: Int) async throws { try viewer.click(x: x, y: y) }

    func picture() async -> PixelBuffer? { viewer.picture() }

    func quality(newerThan version: UInt64) async -> (version: UInt64, quality: Int)? { nil }

    func counters() async -> (bytes: Int, updates: UInt64) {
        (viewer.receivedBytes, viewer.snapshot.version)
    }

    func linkStats() async -> LinkStats? { nil }

    func failure() async -> String? { viewer.snapshot.failure.map { "the VNC connection failed: \($0)" } }

    func size() async -> (width: Int, height: Int)? {
        let snapshot = viewer.snapshot
        return snapshot.version > 0 ? (snapshot.width, snapshot.height) : nil
    }
}
