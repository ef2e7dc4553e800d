/* A dying disk for one file: preloaded into a process (LD_PRELOAD), it makes every read of
 * the file named in BOOTH_EIO_FILE that touches the byte range [BOOTH_EIO_FROM, BOOTH_EIO_TO)
 * fail with EIO, as a failing SD card's bad sector does. Every other read goes to libc.
 * SQLite's unix VFS reads with pread64 (or pread, or read after lseek on some builds). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int hits(int fd, off_t offset, size_t count) {
    const char *target = getenv("BOOTH_EIO_FILE");
    const char *from_text = getenv("BOOTH_EIO_FROM");
    const char *to_text = getenv("BOOTH_EIO_TO");
    if (!target || !from_text || !to_text) return 0;
    long long from = atoll(from_text), to = atoll(to_text);
    if ((long long)offset + (long long)count <= from || (long long)offset >= to) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = '\0';
    return strcmp(path, target) == 0;
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    if (hits(fd, offset, count)) { errno = EIO; return -1; }
    return real(fd, buf, count, offset);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (hits(fd, offset, count)) { errno = EIO; return -1; }
    return real(fd, buf, count, offset);
}

ssize_t read(int fd, void *buf, size_t count) {
    static ssize_t (*real)(int, void *, size_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    off_t here = lseek(fd, 0, SEEK_CUR);
    if (here >= 0 && hits(fd, here, count)) { errno = EIO; return -1; }
    return real(fd, buf, count);
}
