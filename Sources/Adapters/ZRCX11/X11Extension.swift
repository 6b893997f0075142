internal import CXCB

/// The X extensions ZRC uses, with what each one is for.
public enum X11Extension: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MIT-SHM: captures land in shared memory instead of travelling through the socket.
    case sharedMemory
    /// DAMAGE: the server reports which areas changed, so a static screen costs nothing.
    case damage
    /// XFIXES: the cursor shape, which screen captures do not contain.
    case xfixes
    /// RANDR: screen size changes.
    case randr
    /// XTEST: injecting pointer and keyboard input.
    case xtest

    /// The name the server knows the extension by.
    public var description: String {
        switch self {
        case .sharedMemory: "MIT-SHM"
        case .damage: "DAMAGE"
        case .xfixes: "XFIXES"
        case .randr: "RANDR"
        case .xtest: "XTEST"
        }
    }

    /// libxcb's extension descriptor (an incomplete C struct, hence opaque), through the shim:
    /// Swift cannot import the globals directly.
    var xcbID: OpaquePointer {
        switch self {
        case .sharedMemory: zrc_xcb_shm_id()
        case .damage: zrc_xcb_damage_id()
        case .xfixes: zrc_xcb_xfixes_id()
        case .randr: zrc_xcb_randr_id()
        case .xtest: zrc_xcb_test_id()
        }
    }
}
