/* Reads or changes page-cache state of a file it can map (its own libc: the only
 * kind of file a run sees): KIND 0 asks mincore whether pages are cached, 1 pushes them
 * out with MADV_PAGEOUT, 2 with MADV_COLD. Answers only if the kernel accepted.
 * Bounded: one mapping of at most 2 MiB. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#ifndef KIND
#define KIND 0
#endif
int main(void) {
    int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
    if (fd < 0) fd = open("/lib64/ld-linux-x86-64.so.2", O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 1;
    size_t len = st.st_size < (2 << 20) ? (size_t)st.st_size & ~4095UL : 2 << 20;
    char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return 1;
    unsigned char vec[512];
    int ok;
    if (KIND == 0) ok = mincore(m, len < sizeof vec * 4096 ? len : sizeof vec * 4096, vec) == 0;
    else ok = madvise(m, len, KIND == 1 ? MADV_PAGEOUT : MADV_COLD) == 0;
    if (!ok) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
