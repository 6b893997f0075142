import Foundation
import Synchronization
import ZRCCommandSupport
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// The benchmark's VNC viewer: RFB 3.8 with security type None, a 32-bit BGRX pixel format, and
/// the classic request loop (the next incremental FramebufferUpdateRequest goes out once an update
/// is read and drawn). Every update is decoded into a framebuffer, so the figures are those of a
/// viewer that shows what it gets. It asks for the pointer's shape as a pseudo-encoding, as real
/// viewers do, so no server paints the pointer into the picture. One thread reads and draws; any
/// task polls and clicks.
final class RFBViewer: Sendable {
    enum Encodings: String, CaseIterable, Sendable {
        /// ZRLE (TigerVNC's choice for lossless), CopyRect, Raw.
        case zrle
        /// Tight with JPEG quality level 6 (about q80) and zlib level 2 (TigerVNC's default), CopyRect, Raw.
        case tight

        var numbers: [Int32] {
            switch self {
            case .zrle: [RFBEncoding.zrle, RFBEncoding.copyRect, RFBEncoding.raw, RFBEncoding.desktopSize, RFBEncoding.cursor]
            case .tight: [RFBEncoding.tight, RFBEncoding.copyRect, RFBEncoding.raw, RFBEncoding.desktopSize, RFBEncoding.cursor, RFBEncoding.lastRect,
                          RFBEncoding.jpegQuality(6), RFBEncoding.compressLevel(2)]
            }
        }
    }

    /// What the measuring side sees, copied out under the lock.
    struct Snapshot: Sendable {
        var version: UInt64 = 0
        var decodedMicros: UInt64 = 0
        /// The picture's size (zero before the handshake).
        var width = 0
        var height = 0
        var failure: String?
    }

    private struct State {
        var snapshot = Snapshot()
        var picture = PixelBuffer(width: 0, height: 0)
        /// Set while a caller waits for an exact picture: the reader hashes each new version.
        var hashing = false
        var hash: (version: UInt64, decodedMicros: UInt64, value: UInt64)?
    }

    private let state = Mutex(State())
    private let writer: RFBWriter
    private let received = RFBByteCounter()

    /// Bytes received so far, including an update still arriving.
    var receivedBytes: Int { received.value }

    /// Connects and starts the reader thread; `ready` waits for the first full picture.
    init(address: String, port: Int, encodings: Encodings) throws {
        let descriptor = try RFBConnection.connect(address: address, port: port)
        writer = RFBWriter(descriptor: descriptor)
        Thread.detachNewThread { [self] in
            do {
                try serve(descriptor: descriptor, encodings: encodings)
            } catch {
                state.withLock { $0.snapshot.failure = "\(error)" }
            }
            Glibc.close(descriptor)
        }
    }

    func close() { writer.close() }

    var snapshot: Snapshot {
        state.withLock { state in
            var snapshot = state.snapshot
            (snapshot.width, snapshot.height) = (state.picture.width, state.picture.height)
            return snapshot
        }
    }

    /// The pixel at (x, y) with the version it belongs to.
    func pixel(x: Int, y: Int) -> (version: UInt64, decodedMicros: UInt64, rgb: UInt32)? {
        state.withLock { state in
            guard x < state.picture.width, y < state.picture.height else { return nil }
            return (state.snapshot.version, state.snapshot.decodedMicros, state.picture.pixel(x: x, y: y))
        }
    }

    /// A copy of the newest picture (nil before the first).
    func picture() -> PixelBuffer? {
        state.withLock { $0.snapshot.version > 0 ? $0.picture : nil }
    }

    /// `PixelHash` of the newest picture, hashed by the reader after each update once asked for.
    func newestHash() -> (version: UInt64, decodedMicros: UInt64, value: UInt64)? {
        state.withLock { state in
            if !state.hashing {
                state.hashing = true
                state.hash = (state.snapshot.version, state.snapshot.decodedMicros, PixelHash.of(state.picture))
            }
            return state.hash
        }
    }

    func click(x: Int, y: Int) throws {
        try writer.pointer(buttons: 1, x: x, y: y)
        try writer.pointer(buttons: 0, x: x, y: y)
    }

    // MARK: - The reader thread

    private func serve(descriptor: Int32, encodings: Encodings) throws {
        let reader = RFBReader(descriptor: descriptor, total: received)
        let (width, height) = try Self.handshake(reader: reader, writer: writer, encodings: encodings)
        state.withLock { $0.picture = PixelBuffer(width: width, height: height) }
        let tight = try TightDecoder(), zrle = try ZRLEDecoder(), jpeg = try FrameCodec()
        var size = (width: width, height: height)
        try writer.requestUpdate(incremental: false, width: width, height: height)
        while true {
            let type = try reader.u8()
            switch type {
            case 0:
                _ = try reader.u8()
                let count = try reader.u16()
                var paints: [RFBPaint] = []
                for _ in 0..<count {
                    let rect = PixelRect(x: try reader.u16(), y: try reader.u16(), width: try reader.u16(), height: try reader.u16())
                    let encoding = try reader.s32()
                    if encoding == RFBEncoding.lastRect { break }
                    if encoding == RFBEncoding.desktopSize {
                        size = (rect.width, rect.height)
                        paints.append(.resize(width: rect.width, height: rect.height))
                        continue
                    }
                    if encoding == RFBEncoding.cursor {
                        // The pointer's shape, which viewers draw themselves: skipped, as ZRC's is.
                        guard rect.width <= 256, rect.height <= 256 else { throw BenchError("RFB: a \(rect.width)x\(rect.height) cursor") }
                        try reader.skip(rect.area * 4 + (rect.width + 7) / 8 * rect.height)
                        continue
                    }
                    guard rect.x + rect.width <= size.width, rect.y + rect.height <= size.height else {
                        throw BenchError("RFB: a rectangle \(rect) outside the \(size.width)x\(size.height) screen")
                    }
                    switch encoding {
                    case RFBEncoding.raw: paints.append(.pixels(rect, try reader.bytes(rect.area * 4)))
                    case RFBEncoding.copyRect: paints.append(.copy(rect, sourceX: try reader.u16(), sourceY: try reader.u16()))
                    case RFBEncoding.tight: paints.append(try tight.read(rect, from: reader))
                    case RFBEncoding.zrle: paints.append(try zrle.read(rect, from: reader))
                    default: throw BenchError("RFB: the server used encoding \(encoding), which was not asked for")
                    }
                }
                let decoded = WireClock.monotonicMicros()
                try state.withLock { state in
                    for paint in paints { try Self.draw(paint, on: &state.picture, jpeg: jpeg) }
                    state.snapshot.version += 1
                    state.snapshot.decodedMicros = max(decoded, WireClock.monotonicMicros())
                    if state.hashing { state.hash = (state.snapshot.version, state.snapshot.decodedMicros, PixelHash.of(state.picture)) }
                }
                // After a resize the new framebuffer starts black: ask for all of it.
                let resized = paints.contains { if case .resize = $0 { true } else { false } }
                try writer.requestUpdate(incremental: !resized, width: size.width, height: size.height)
            case 1:
                _ = try reader.u8()
                _ = try reader.u16()
                try reader.skip(try reader.u16() * 6)
            case 2:
                break
            case 3:
                try reader.skip(3)
                let length = Int(try reader.u32())
                guard length <= 1 << 20 else { throw BenchError("RFB: \(length) bytes of clipboard text") }
                try reader.skip(length)
            default:
                throw BenchError("RFB: unknown server message \(type)")
            }
        }
    }

    private static func draw(_ paint: RFBPaint, on picture: inout PixelBuffer, jpeg: FrameCodec) throws {
        switch paint {
        case .pixels(let rect, let bytes): picture.blit(bytes, into: rect)
        case .fill(let rect, let rgb): picture.fill(rect, rgb: rgb)
        case .jpeg(let rect, let data): try jpeg.decodeJPEG(data, into: &picture, rect: rect)
        case .copy(let rect, let sourceX, let sourceY):
            let source = PixelRect(x: sourceX, y: sourceY, width: rect.width, height: rect.height)
            guard source.intersection(picture.bounds) == source else { throw BenchError("RFB: CopyRect from outside the screen") }
            picture.move(source, to: rect)
        case .resize(let width, let height): picture = PixelBuffer(width: width, height: height)
        }
    }

    /// Version, security None, ClientInit (shared), ServerInit, then our pixel format and encodings.
    private static func handshake(reader: RFBReader, writer: RFBWriter, encodings: Encodings) throws -> (Int, Int) {
        let version = String(decoding: try reader.bytes(12), as: UTF8.self)
        // 3.8 only: older versions negotiate security differently, and every server measured offers 3.8.
        guard version.hasPrefix("RFB 003.") else { throw BenchError("RFB: not an RFB server (it said \(version.debugDescription))") }
        guard version >= "RFB 003.008" else { throw BenchError("RFB: the server offers \(version.debugDescription), not 3.8") }
        try writer.send(Array("RFB 003.008\n".utf8))
        let count = Int(try reader.u8())
        guard count > 0 else { throw BenchError("RFB: the server refused the connection: \(try reason(reader))") }
        guard try reader.bytes(count).contains(1) else { throw BenchError("RFB: the server does not offer security type None") }
        try writer.send([1])
        guard try reader.u32() == 0 else { throw BenchError("RFB: security failed: \(try reason(reader))") }
        try writer.send([1])
        let width = try reader.u16(), height = try reader.u16()
        try reader.skip(16)
        let nameLength = Int(try reader.u32())
        guard nameLength <= 4096 else { throw BenchError("RFB: a desktop name of \(nameLength) bytes") }
        try reader.skip(nameLength)
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { throw BenchError("RFB: a \(width)x\(height) screen") }
        // 32 bits per pixel, depth 24, little-endian, true colour, 8 bits each at 16/8/0: BGRX.
        try writer.send([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0])
        try writer.send([2, 0] + RFBWriter.u16(encodings.numbers.count) + encodings.numbers.flatMap(RFBWriter.s32))
        return (width, height)
    }

    private static func reason(_ reader: RFBReader) throws -> String {
        let length = Int(try reader.u32())
        guard length <= 4096 else { return "(a reason of \(length) bytes)" }
        return String(decoding: try reader.bytes(length), as: UTF8.self).filter { !$0.isASCII || !$0.asciiValue!.isControl }
    }
}

private extension UInt8 {
    var isControl: Bool { self < 0x20 || self == 0x7F }
}
