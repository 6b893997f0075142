import Foundation

/// System V shared-memory segments as the kernel lists them (/proc/sysvipc/shm).
enum SysVSharedMemory {
    /// Removes the segments `pid` created that nothing is attached to any more: x11vnc leaves its
    /// MIT-SHM segments behind when stopped, about 60 per run, and they would fill the machine's
    /// table over a few benchmark runs.
    static func removeOrphans(createdBy pid: Int32) {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let file = FileHandle(forReadingAtPath: "/proc/sysvipc/shm") else { return }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        // Columns: key shmid perms size cpid lpid nattch …
        for line in table.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 6, Int32(columns[4]) == pid, columns[6] == "0", let id = Int32(columns[1]) else { continue }
            _ = shmctl(id, IPC_RMID, nil)
        }
    }
}
