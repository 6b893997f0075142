#ifndef ZRC_FILE_SYSTEM_H
#define ZRC_FILE_SYSTEM_H

#include <stdint.h>

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: `path` resolves beneath `dirfd` or
/// fails (EXDEV for a `..` or symbolic link leading out, ELOOP for a magic link). glibc has no
/// wrapper and Swift cannot call the variadic syscall(2). Returns the descriptor, or -1 with
/// errno set (ENOSYS on kernels before 5.6: the caller then walks with O_NOFOLLOW).
int zrc_open_beneath(int dirfd, const char *path, uint64_t flags, uint64_t mode);

/// renameat2(2) with RENAME_NOREPLACE: EEXIST when `newpath` exists (atomically). -1 with errno
/// (EINVAL or ENOSYS where the file system cannot: the caller falls back to linkat + unlinkat).
int zrc_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writeback of that range and returns at
/// once, so the fsync at the end of a large file has little left to do. -1 with errno.
int zrc_start_writeback(int fd, int64_t offset, int64_t length);

/// Turns O_DIRECT on or off for an open descriptor (fcntl F_SETFL; O_DIRECT's value differs
/// between architectures and needs _GNU_SOURCE). 0, or -1 with errno (EINVAL where the file
/// system cannot do direct I/O).
int zrc_set_direct(int fd, int on);

/// O_PATH and UTIME_OMIT, which Swift's Glibc module does not show (they need _GNU_SOURCE or
/// are macros it cannot import).
static const int zrc_o_path = 010000000;
static const long zrc_utime_omit = (1l << 30) - 2l;

#endif
