/* Holds memory (or a host-wide quota) in a kernel object that no rlimit counts: KIND 0
 * vmsplices a 4 KiB slice of a 2 MiB transparent huge page into a pipe and unmaps it
 * (the pipe keeps the whole huge page); 1 grows a pipe with F_SETPIPE_SZ; 2 takes AIO
 * contexts (fs.aio-max-nr is host-wide); 3 takes an inotify instance (watches are a
 * per-host-user quota); 4 creates POSIX timers (no limit on how many: kernel memory);
 * 5 queues 1000 signals to itself (RLIMIT_SIGPENDING is per host user). Answers only if
 * the kernel accepted. Bounded: one pipe, 1 MiB, 64 AIO events, one instance, 16 timers,
 * 1000 signals, all released when the run ends. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <signal.h>
#include <sys/inotify.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "common.h"
#ifndef KIND
#define KIND 0
#endif
int main(void) {
    int ok = 0, p[2];
    if (KIND <= 1 && pipe(p) != 0) return 1;
    if (KIND == 0) {
        size_t huge = 2 << 20;
        char *m = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return 1;
        char *a = (char *)(((unsigned long)m + huge - 1) & ~(huge - 1));
        madvise(a, huge, MADV_HUGEPAGE);
        a[0] = 1;
        struct iovec v = {a, 4096};
        ok = vmsplice(p[1], &v, 1, 0) == 4096;
        munmap(m, 2 * huge);
    } else if (KIND == 1) {
        ok = fcntl(p[1], F_SETPIPE_SZ, 1 << 20) >= (1 << 20);
    } else if (KIND == 2) {
        aio_context_t ctx = 0;
        ok = syscall(SYS_io_setup, 64, &ctx) == 0;
    } else if (KIND == 3) {
        ok = inotify_init1(0) >= 0;
    } else if (KIND == 4) {
        timer_t t;
        ok = 1;
        for (int i = 0; i < 16 && ok; i++) ok = timer_create(CLOCK_MONOTONIC, NULL, &t) == 0;
    } else {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGRTMIN);
        sigprocmask(SIG_BLOCK, &set, NULL);
        union sigval v = {0};
        ok = 1;
        for (int i = 0; i < 1000 && ok; i++) ok = sigqueue(getpid(), SIGRTMIN, v) == 0;
    }
    if (!ok) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
