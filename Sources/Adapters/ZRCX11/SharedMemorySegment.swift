internal import CXCB
internal import Glibc
import ZRCSystem

/// A System V shared-memory segment attached both to this process and to the X server, for
/// MIT-SHM captures. Owns the mapping and the server-side attachment and releases both.
///
/// Private and self-cleaning: the segment is created with mode 0600, so only this user can attach
/// it (RustDesk's 0777 lets any local user read the screen), and it is marked for removal
/// (IPC_RMID) right after we attach it, before the server does. Linux keeps a marked segment
/// attachable by id until its last detach and then destroys it, so it disappears on every exit
/// path, including a crash or SIGKILL, once this process and the server's reference are gone
/// (the server drops it when we detach it or when our connection closes).
///
/// Not Sendable: the server writes into the memory during captures, which the owning
/// `ScreenCapturer` serialises.
final class SharedMemorySegment {
    let connection: XCBConnectionHandle
    /// The System V id (what `ipcs -m` shows).
    let systemID: Int32
    /// The id the X server knows the segment by.
    let serverID: xcb_shm_seg_t
    let address: UnsafeMutableRawPointer
    let byteCount: Int

    init(connection: XCBConnectionHandle, byteCount: Int) throws(X11Error) {
        self.connection = connection
        self.byteCount = byteCount
        let id = shmget(0 /* IPC_PRIVATE */, byteCount, IPC_CREAT | 0o600)
        guard id >= 0 else {
            throw X11Error(.sharedMemoryFailed, "shmget of \(byteCount) bytes failed: \(SystemCall.describeErrno())")
        }
        systemID = id
        let mapped = shmat(id, nil, 0)
        // Mark for removal whatever happened: from here on the kernel deletes the segment when its
        // last attachment goes, and if shmat failed there is none, so it goes now.
        let removed = shmctl(id, IPC_RMID, nil)
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw X11Error(.sharedMemoryFailed, "shmat of segment \(id) failed: \(SystemCall.describeErrno())")
        }
        guard removed == 0 else {
            let reason = SystemCall.describeErrno()
            shmdt(mapped)
            throw X11Error(.sharedMemoryFailed, "cannot mark shared memory segment \(id) for removal: \(reason)")
        }
        address = mapped

        let seg = xcb_generate_id(connection.raw)
        guard seg != UInt32.max else {
            shmdt(mapped)
            throw X11Error(.connectionLost, "cannot allocate an X resource id: \(connection.failure ?? "the connection is broken")")
        }
        serverID = seg
        // read_only = 0: the server writes the captured pixels into the segment. The checked
        // request is a round trip, so a server that cannot attach (another machine, another IPC
        // namespace, MIT-SHM disabled for this client) is detected here rather than at capture.
        do {
            try checkXCBRequest(on: connection, request: "MIT-SHM Attach of segment \(id)",
                                xcb_shm_attach_checked(connection.raw, seg, UInt32(bitPattern: id), 0))
        } catch {
            shmdt(mapped)
            throw X11Error(.sharedMemoryFailed, error.message)
        }
    }

    deinit {
        // Detach on the server first, and wait for it (a round trip), so that when this deinit
        // returns the segment is gone from the system rather than lingering until the server gets
        // round to it. On a broken connection the server has already dropped it.
        if connection.failure == nil, let error = xcb_request_check(connection.raw, xcb_shm_detach_checked(connection.raw, serverID)) {
            free(error)
        }
        // Can fail only for an address that is not attached, which `address` always is.
        shmdt(address)
    }
}
