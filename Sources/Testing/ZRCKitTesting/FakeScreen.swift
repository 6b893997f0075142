import Synchronization
public import ZRCFrames
public import ZRCHostKit
import ZRCNetworking
public import ZRCProtocol
import ZRCTestSupport

/// A screen the test draws on, and the input the host injected, for frame-pipeline tests
/// without an X server (the X11 adapter has its own tests under Xvfb).
public final class FakeScreen: ScreenSource, InputSink {
    private let state: Mutex<(pixels: PixelBuffer, damage: DamageLedger, captures: Int, input: [InputEvent], released: Int)>
    /// Whether captures carry generations (so sessions share encodings and updates), and the
    /// generation of the pixels as they are.
    private let numbersCaptures: Bool
    private let generation = Mutex<UInt64>(1)
    /// Every drawing, injected event and release: what waits (the host's `waitForChange`, a
    /// test's `waitUntil`) look again at.
    private let changes = ChangeSignal()

    public init(width: Int, height: Int, numbersCaptures: Bool = false) {
        self.numbersCaptures = numbersCaptures
        var pixels = PixelBuffer(width: width, height: height)
        for y in 0..<height { for x in 0..<width { pixels.setPixel(x: x, y: y, rgb: UInt32(x * 7 ^ y * 13) & 0xFFFFFF) } }
        state = Mutex((pixels, DamageLedger(), 0, [], 0))
    }

    public func draw(_ body: (inout PixelBuffer) -> Void) {
        state.withLock { state in
            body(&state.pixels)
            let drawn = generation.withLock { generation in
                generation += 1
                return generation
            }
            state.damage.record([state.pixels.bounds], generation: drawn)
        }
        changes.notify()
    }

    public var pixels: PixelBuffer { state.withLock { $0.pixels } }
    public var captures: Int { state.withLock { $0.captures } }
    public var injected: [InputEvent] { state.withLock { $0.input } }
    public var releases: Int { state.withLock { $0.released } }

    /// Whether `condition` held of the screen within `timeout`, looked at again after every
    /// drawing, injected event and release.
    public func waitUntil(within timeout: Duration = .seconds(30), _ condition: (FakeScreen) -> Bool) async -> Bool {
        await changes.wait(within: timeout) { condition(self) }
    }

    public func capture(for viewer: ScreenViewer) async throws -> ScreenCapture {
        state.withLock { state in
            state.captures += 1
            return ScreenCapture(pixels: state.pixels, hints: state.damage.take(for: viewer), captureMicros: WireClock.monotonicMicros(),
                                 generation: numbersCaptures ? generation.withLock { $0 } : 0)
        }
    }

    public func waitForChange(for viewer: ScreenViewer, timeout: Duration) async -> Bool {
        _ = await changes.wait(within: timeout) { state.withLock { $0.damage.hasDamage(for: viewer) } }
        return state.withLock { $0.damage.hasDamage(for: viewer) }
    }

    public func skip(for viewer: ScreenViewer, through generation: UInt64) async {
        state.withLock { $0.damage.skip(for: viewer, through: generation) }
    }

    public func viewerLeft(_ viewer: ScreenViewer) async { state.withLock { $0.damage.remove(viewer) } }

    private let pointer = Mutex<(x: Int32, y: Int32)>((5, 7))
    public static let arrow = CursorShape(shapeID: 42, width: 2, height: 2, hotX: 0, hotY: 0, rgba: [UInt8](repeating: 0xFF, count: 16))

    public func movePointer(x: Int32, y: Int32) { pointer.withLock { $0 = (x, y) } }

    public func cursor() async throws -> CursorState? {
        let position = pointer.withLock { $0 }
        return CursorState(x: position.x, y: position.y, shape: Self.arrow)
    }

    public func inject(_ event: InputEvent) async throws {
        state.withLock { $0.input.append(event) }
        changes.notify()
    }

    public func releaseAll() async {
        state.withLock { $0.released += 1 }
        changes.notify()
    }
}
