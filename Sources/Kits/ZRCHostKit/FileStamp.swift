import Foundation
import Glibc

/// What tells a file's content changed without reading it: inode, size and modification time
/// (atomic replacement gives a new inode; an edit in place a new time). Nil fields: no such file.
struct FileStamp: Equatable, Sendable {
    let inode: UInt64?
    let size: Int64?
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    init(of url: URL) {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            (inode, size, modifiedSeconds, modifiedNanoseconds) = (nil, nil, 0, 0)
            return
        }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
    }
}
