/* Kernel-wide counters and ids that outlive a run: one run moves them to leave a mark
 * (MODE 1, MARK 0..1023), a later run reads them (MODE 2) and prints what it saw. Each
 * KIND is one class:
 *   0  inode numbers of the kernel's pseudo mounts (get_next_ino: pipes, /proc), moved
 *      by pipe(), read through the inode of the stdout pipe the supervisor made
 *   1  inode numbers of the internal shared-memory mount, moved and read by memfd_create
 *   2  the same counter, moved by MAP_SHARED|MAP_ANONYMOUS mappings (read by memfd)
 *   3  the same counter, moved by MAP_SHARED mappings of /dev/zero (read by memfd)
 *   4  get_next_ino moved by looking up /proc entries (read as in 0)
 *   5  CPU affinity: MODE 1 moves to every CPU outside its mask; prints how many it could
 *   6  pid numbers: prints getpid() (a run index where runs share a pid namespace)
 *   7  timer slack: MODE 1 sets it, MODE 2 prints it (a per-process value: never crosses)
 *   8  unique mount ids (a machine-wide counter every mount moves): prints its root's
 *      minus its input's, which grows with the runs the sandbox made (a run index)
 *   9  machine-wide counters and ids in /proc (forks, last pid, inode and file counts,
 *      locks, namespace ids): prints how many of them it could read
 *  10  key serials and namespace ids made by the run (add_key, keyctl, unshare): prints
 *      how many of those calls worked
 * Per-CPU counters are handed out in batches of 1024, so "ino mod 1024" moves by one per
 * allocation on that CPU (runs share their sandbox's CPUs). Bounded: at most 2048
 * allocations per run, each freed at once. Prints "mark <MARK>" or "read <value>" or
 * "refused <what>" on stdout. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif
#ifndef KIND
#define KIND 0
#endif
#ifndef MODE
#define MODE 2
#endif
#ifndef MARK
#define MARK 0
#endif

static long pipe_ino(void) { /* a new pipefs inode, freed again */
    int p[2];
    struct stat st;
    if (pipe(p)) return -1;
    long ino = fstat(p[0], &st) ? -1 : (long)st.st_ino;
    close(p[0]);
    close(p[1]);
    return ino;
}

static long memfd_ino(void) { /* a new inode on the internal shm mount, freed again */
    struct stat st;
    int fd = (int)syscall(SYS_memfd_create, "m", 0);
    if (fd < 0) return -1;
    long ino = fstat(fd, &st) ? -1 : (long)st.st_ino;
    close(fd);
    return ino;
}

static int shared_map(int dev_zero) { /* one shmem inode, unmapped again */
    int fd = -1;
    if (dev_zero && (fd = open("/dev/zero", O_RDWR)) < 0) return -1;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | (dev_zero ? 0 : MAP_ANONYMOUS), fd, 0);
    if (fd >= 0) close(fd);
    if (p == MAP_FAILED) return -1;
    munmap(p, 4096);
    return 0;
}

static int proc_lookups(void) { /* every entry of /proc/self and its task: new inodes */
    static const char *dirs[] = {"/proc/self", "/proc/self/task", "/proc/self/fdinfo", "/proc/self/fd"};
    int n = 0;
    for (int k = 0; k < 4; k++) {
        DIR *d = opendir(dirs[k]);
        struct dirent *e;
        if (!d) continue;
        while ((e = readdir(d))) {
            char path[512];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            if (!stat(path, &st)) n++;
        }
        closedir(d);
    }
    return n;
}

static long stdout_ino(void) {
    struct stat st;
    return fstat(1, &st) ? -1 : (long)st.st_ino;
}

int main(void) {
    if (KIND == 5) {
        cpu_set_t mine, one;
        int moved = 0;
        sched_getaffinity(0, sizeof mine, &mine);
        for (int c = 0; c < 256 && MODE == 1; c++) {
            if (CPU_ISSET(c, &mine)) continue;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            if (sched_setaffinity(0, sizeof one, &one) == 0) moved++;
        }
        printf("read %d\n", moved);
        return 0;
    }
    if (KIND == 6) {
        printf("read %d\n", (int)getpid());
        return 0;
    }
    if (KIND == 8) {
        struct statx root, in;
        if (statx(AT_FDCWD, "/", 0, STATX_MNT_ID_UNIQUE, &root) || statx(0, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &in) ||
            !(root.stx_mask & STATX_MNT_ID_UNIQUE)) {
            printf("refused statx\n");
            return 0;
        }
        printf("read %lld\n", (long long)(root.stx_mnt_id - in.stx_mnt_id));
        return 0;
    }
    if (KIND == 9) {
        static const char *files[] = {"/proc/stat", "/proc/loadavg", "/proc/sys/kernel/ns_last_pid",
                                      "/proc/sys/fs/inode-nr", "/proc/sys/fs/file-nr", "/proc/locks",
                                      "/proc/self/ns/mnt"};
        int n = 0;
        for (int k = 0; k < 7; k++) {
            int fd = open(files[k], O_RDONLY);
            char buf[256];
            if (fd >= 0 && read(fd, buf, sizeof buf) > 0) n++;
            if (fd >= 0) close(fd);
        }
        printf("read %d\n", n);
        return 0;
    }
    if (KIND == 10) {
        int n = 0;
        n += syscall(SYS_add_key, "user", "sc", "x", 1, -2 /* KEY_SPEC_PROCESS_KEYRING */) > 0;
        n += syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 1) > 0;
        n += unshare(CLONE_NEWUTS) == 0;
        printf("read %d\n", n);
        return 0;
    }
    if (KIND == 7) {
        if (MODE == 1) prctl(PR_SET_TIMERSLACK, 1000000UL + MARK);
        printf("read %ld\n", (long)prctl(PR_GET_TIMERSLACK));
        return 0;
    }
    if (MODE == 2) {
        long ino = KIND == 0 || KIND == 4 ? stdout_ino() : memfd_ino();
        if (ino < 0) { printf("refused read\n"); return 0; }
        printf("read %ld\n", ino % 1024);
        return 0;
    }
    /* MODE 1: allocate until the last inode handed out on this CPU is MARK (mod 1024) */
    if (KIND == 4) { /* lookups move it by a few dozen: then pipes cannot be told from them */
        int n = proc_lookups();
        printf(n ? "mark %d\n" : "refused proc\n", n);
        return 0;
    }
    if (KIND == 2 || KIND == 3) { /* where it is, then that many mappings more */
        long ino = memfd_ino(), need = ino < 0 ? 1 : (MARK - ino % 1024 + 1024) % 1024;
        for (long i = 0; i < need; i++)
            if (shared_map(KIND == 3)) { printf("refused map\n"); return 0; }
        printf(ino < 0 ? "mark blind\n" : "mark %d\n", MARK); /* blind: nothing tells where */
        return 0;
    }
    for (int i = 0; i < 2048; i++) {
        long ino = KIND == 0 ? pipe_ino() : memfd_ino();
        if (ino < 0) { printf("refused alloc\n"); return 0; }
        if (ino % 1024 == MARK) { printf("mark %d\n", MARK); return 0; }
    }
    printf("mark missed\n");
    return 0;
}
