/*
 * supercoder sandbox runner: supervises untrusted programs, one at a time.
 *
 * Runs as pid 1 of its own pid namespace inside bubblewrap (or as a plain process
 * with --unsafe-no-sandbox). Reads one command per line on stdin:
 *
 *   RUN <binary> <input-file> <cpu_ms> <wall_ms> <mem_mb> <out_limit> <nproc> [<idle_ms> [<args-file> [<files-dir>]]]
 *
 * <args-file> ("-": none) holds the run's command-line arguments, each ended by a NUL
 * byte. Every run's argv[0] is the same fixed name (PROGRAM_NAME), whichever binary it
 * is: a program that prints or hashes argv[0] behaves alike as baseline and candidate.
 * <files-dir> ("-": none) holds the run's data files: each is placed, read-only, in the
 * run's working folder (WORK_DIR, the same for every run) under its name there. The
 * input is also /dev/stdin and /dev/fd/0 (there is no /proc for the usual links).
 *
 * and answers on stdout with a header line followed by the captured bytes:
 *
 *   RES <outcome> <exit> <signal> <user_us> <sys_us> <wall_us> <maxrss_kb>
 *       <leftover> <out_len> <err_len> <blocked_us>\n<stdout bytes><stderr bytes>
 *
 * outcome: exited | signaled | timeout | idle | output_limit | spawn_error | tampered.
 * With --fresh-root (inside bubblewrap), each run gets a root of its own: a new mount
 * namespace whose / is a fresh read-only tmpfs holding only the sandbox's own files
 * (the loader and libraries), the one binary it runs and a few device nodes, each bound
 * file by file (no /proc), and the same pid as every other run. Whatever a run leaves in the kernel's caches for the paths it
 * looks up (negative dentries of names it tried, for one) lives in that tmpfs and is
 * gone with it: nothing a run does to its filesystem is seen by the next. Its input is
 * the open file on stdin, reachable by no path. CPU time spent before exec (this set-up,
 * rlimits, seccomp) is not the program's: it is taken out of the times reported.
 * blocked_us: wall time the program spent neither running nor waiting for a CPU
 * (sleeping, blocked: /proc/<pid>/schedstat), -1 where the kernel does not say; a run
 * blocked longer than idle_ms is killed ("idle"): sleeping costs no CPU time, and a
 * program must not hold its machine's timing slot for nothing.
 * Each child gets its own process group, rlimits, no_new_privs and a seccomp filter before
 * exec (it may exec only the binary we name, through a pointer at a random address);
 * after it exits, every remaining descendant is killed (we are a child subreaper) and
 * counted as "leftover", and our own rlimits, priority, scheduling and affinity are
 * checked and restored: a program that changed them (or left SysV IPC objects, which
 * seccomp forbids anyway) gets "tampered"; one we could not undo fails every later run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERR_KEEP 8192

struct job {
    char bin[4096], input[4096], args[4096], files[4096];
    long cpu_ms, wall_ms, mem_mb, out_limit, nproc, idle_ms;
};

struct buf { char *data; size_t len, cap; };

static void buf_add(struct buf *b, const char *p, size_t n, size_t keep) {
    if (b->len >= keep) return;
    if (n > keep - b->len) n = keep - b->len;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n) cap *= 2;
        b->data = realloc(b->data, cap);
        if (!b->data) _exit(3);
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* ---- seccomp ------------------------------------------------------------ */

#define MAXF 1024
#define LAST_KNOWN_SYSCALL 450 /* newer syscalls: ENOSYS (no glibc we build with uses them) */
static struct sock_filter prog[MAXF];
static int np;

#define INSN(code, k) (struct sock_filter)BPF_STMT(code, k)
#define JUMP(code, k, jt, jf) (struct sock_filter)BPF_JUMP(code, k, jt, jf)
#define RET_ERRNO(e) INSN(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define RET_ALLOW INSN(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define RET_KILL INSN(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)
#define LOAD_NR INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG(i) INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define LOAD_ARG_HI(i) INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]) + 4)

static void emit(struct sock_filter f) { if (np < MAXF) prog[np++] = f; }

/* One rule per syscall number: a short block entered with A = nr that returns on every
 * path. Rules are laid out as a binary search on nr, so a syscall passes ~10
 * instructions, not one per rule (and the kernel's per-nr allow cache is cheap to build). */
struct rule { unsigned nr; int n; struct sock_filter code[12]; };
static struct rule rules[192];
static int nrules;

static struct rule *rule(int nr) {
    struct rule *r = &rules[nrules < 191 ? nrules++ : 191];
    r->nr = (unsigned)nr;
    r->n = 0;
    return r;
}
static void put(struct rule *r, struct sock_filter f) { if (r->n < 12) r->code[r->n++] = f; }
static void deny(int nr, int err) { put(rule(nr), RET_ERRNO(err)); }

/* nr may only act on the calling process: args[idx] (a pid; the kernel reads its low 32
 * bits) must be 0 or our pid, or with children allowed, anything but the supervisor
 * (pid 1 in the sandbox, sup outside). which_idx >= 0: args[which_idx] must also equal
 * which (PRIO_PROCESS...). Else EPERM. */
static void target_self(int nr, int idx, int which_idx, unsigned which, pid_t me, pid_t sup, int procs) {
    struct rule *r = rule(nr);
    if (which_idx >= 0) {
        put(r, LOAD_ARG(which_idx));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, which, 0, 3));
    }
    put(r, LOAD_ARG(idx));
    if (procs) {
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sup, 0, 1));
    } else {
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)me, 1, 0));
    }
    put(r, RET_ERRNO(EPERM));
    put(r, RET_ALLOW);
}

/* execve only with the exact path pointer the child passes (a random address, per run):
 * the program cannot exec anything, itself included; execveat never. Both kill it. */
static void exec_once(const char *path) {
    uint64_t p = (uint64_t)(uintptr_t)path;
    struct rule *r = rule(SYS_execve);
    put(r, LOAD_ARG(0));
    put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)p, 0, 2));
    put(r, LOAD_ARG_HI(0));
    put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(p >> 32), 1, 0));
    put(r, RET_KILL);
    put(r, RET_ALLOW);
    put(rule(SYS_execveat), RET_KILL);
}

/* args[idx] & mask (or == value when mask is 0) gets EPERM; anything else is allowed */
static void deny_arg(int nr, int idx, unsigned value, unsigned mask) {
    struct rule *r = rule(nr);
    put(r, LOAD_ARG(idx));
    put(r, mask ? JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1) : JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    put(r, RET_ERRNO(EPERM));
    put(r, RET_ALLOW);
}

static int by_nr(const void *a, const void *b) {
    unsigned x = ((const struct rule *)a)->nr, y = ((const struct rule *)b)->nr;
    return x < y ? -1 : x > y;
}

/* Binary search over rules[lo, hi): small ranges become JEQ chains ending in ALLOW. */
static void emit_tree(int lo, int hi) {
    if (hi - lo <= 4) {
        for (int i = lo; i < hi; i++) {
            emit(JUMP(BPF_JMP | BPF_JEQ | BPF_K, rules[i].nr, 0, (unsigned char)rules[i].n));
            for (int k = 0; k < rules[i].n; k++) emit(rules[i].code[k]);
        }
        emit(RET_ALLOW);
        return;
    }
    int mid = (lo + hi) / 2;
    emit(JUMP(BPF_JMP | BPF_JGE | BPF_K, rules[mid].nr, 0, 1));
    int ja = np;
    emit(INSN(BPF_JMP | BPF_JA, 0)); /* to the upper half, patched below */
    emit_tree(lo, mid);
    if (ja < MAXF) prog[ja].k = (unsigned)(np - ja - 1);
    emit_tree(mid, hi);
}

static const int denied[] = {
    /* other processes, the kernel, the machine */
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp, SYS_pidfd_open,
    SYS_pidfd_send_signal, SYS_pidfd_getfd, SYS_process_madvise, SYS_process_mrelease,
    SYS_tkill, SYS_bpf, SYS_perf_event_open, SYS_kexec_load, SYS_kexec_file_load,
    SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_reboot, SYS_swapon, SYS_swapoff,
    SYS_acct, SYS_syslog, SYS_iopl, SYS_ioperm, SYS_vhangup, SYS_quotactl, SYS_quotactl_fd,
    SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_sethostname, SYS_setdomainname,
    SYS_personality, SYS_userfaultfd, SYS_io_uring_setup, SYS_fanotify_init,
    SYS_name_to_handle_at, SYS_open_by_handle_at, SYS_lookup_dcookie, SYS_uselib,
    /* kernel objects that hold memory no rlimit counts, or host-wide quotas: vmsplice
       (a pipe keeps whole huge pages), AIO contexts (fs.aio-max-nr), inotify watches
       (per host user), secret memory */
    SYS_vmsplice, SYS_io_setup, SYS_inotify_init, SYS_inotify_init1, SYS_memfd_secret,
    SYS_timer_create, /* POSIX timers: no limit on how many, each one kernel memory */
    /* whether a page is cached: a one-bit-per-page store between runs */
    SYS_mincore,
    /* network */
    SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4,
    /* namespaces and mounts */
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns, SYS_open_tree,
    SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr,
    /* identities, keyrings, device nodes */
    SYS_setuid, SYS_setgid, SYS_setreuid, SYS_setregid, SYS_setresuid, SYS_setresgid,
    SYS_setfsuid, SYS_setfsgid, SYS_setgroups, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_mknod, SYS_mknodat,
    /* state that would outlive the run: SysV IPC and POSIX message queues; memfd (each
       one takes an inode number from a per-CPU counter of the kernel's internal shmem
       mount: a run moves it, a later run reads it) */
    SYS_memfd_create, SYS_shmget, SYS_shmat, SYS_shmctl, SYS_shmdt, SYS_semget, SYS_semop, SYS_semtimedop,
    SYS_semctl, SYS_msgget, SYS_msgsnd, SYS_msgrcv, SYS_msgctl, SYS_mq_open, SYS_mq_unlink,
    SYS_mq_timedsend, SYS_mq_timedreceive, SYS_mq_notify, SYS_mq_getsetattr,
};

static int install_seccomp(int allow_procs, int allow_threads, const char *exec_path) {
    pid_t me = getpid(), sup = getppid();
    np = nrules = 0;
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(denied[i], EPERM);
    exec_once(exec_path);
    /* calls that could reach the supervisor (pid 1): only on ourselves */
    static const int by_pid[] = {
        SYS_prlimit64, SYS_sched_setscheduler, SYS_sched_setparam,
        SYS_sched_setattr, SYS_migrate_pages, SYS_move_pages, SYS_rt_sigqueueinfo,
        SYS_rt_tgsigqueueinfo, SYS_tgkill,
    };
    for (size_t i = 0; i < sizeof by_pid / sizeof by_pid[0]; i++) target_self(by_pid[i], 0, -1, 0, me, sup, allow_procs);
    target_self(SYS_setpriority, 1, 0, 0 /* PRIO_PROCESS */, me, sup, allow_procs);
    target_self(SYS_ioprio_set, 1, 0, 1 /* IOPRIO_WHO_PROCESS */, me, sup, allow_procs);
    /* no evicting shared files from the page cache (it would slow the next run down, and
       evicted-or-not is a bit one run could leave for the next) */
    deny_arg(SYS_fadvise64, 3, 4 /* POSIX_FADV_DONTNEED */, 0);
    {
        struct rule *r = rule(SYS_madvise); /* MADV_COLD, MADV_PAGEOUT, MADV_REMOVE */
        put(r, LOAD_ARG(2));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 20, 3, 0));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 21, 2, 0));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9, 1, 0));
        put(r, RET_ALLOW);
        put(r, RET_ERRNO(EPERM));
    }
    /* pipes keep their default size (64 KiB): F_SETPIPE_SZ would hold up to
       pipe-max-size (1 MiB, more for root-set limits) per pipe, outside RLIMIT_AS */
    deny_arg(SYS_fcntl, 1, 1031 /* F_SETPIPE_SZ */, 0);
    /* no unique mount ids (STATX_MNT_ID_UNIQUE): a machine-wide counter that the
       supervisor's mounts of each run's root move, i.e. a run index */
    deny_arg(SYS_statx, 3, 0, 0x4000);
    /* a run stays on the CPUs it was given (its slot's): no moving, not even within them */
    deny(SYS_sched_setaffinity, EPERM);
    {
        /* no shared anonymous mapping (MAP_SHARED or MAP_SHARED_VALIDATE with
           MAP_ANONYMOUS): each is an inode of the internal shmem mount, numbered from
           the counter memfd moves; private mappings (malloc's) are untouched */
        struct rule *r = rule(SYS_mmap);
        put(r, LOAD_ARG(3));
        put(r, INSN(BPF_ALU | BPF_AND | BPF_K, 0x21 /* MAP_SHARED | MAP_ANONYMOUS */));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x21, 0, 1));
        put(r, RET_ERRNO(EPERM));
        put(r, RET_ALLOW);
    }
    deny(SYS_clone3, ENOSYS);
    if (!allow_procs) {
        /* a pipe is only of use to talk to a child; each one takes an inode number from
           the kernel's per-CPU get_next_ino() counter, which a later run reads (the
           inode of its own stdout pipe) */
        deny(SYS_pipe, EPERM);
        deny(SYS_pipe2, EPERM);
        deny(SYS_fork, EPERM);
        deny(SYS_vfork, EPERM);
        if (allow_threads) {
            /* threads, never processes: clone only with CLONE_THREAD (same address
               space, rlimits and filter; RLIMIT_NPROC caps how many) and no CLONE_NEW* */
            struct rule *c = rule(SYS_clone);
            put(c, LOAD_ARG(0));
            put(c, JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x00010000u /* CLONE_THREAD */, 0, 2));
            put(c, JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x7E020080u /* CLONE_NEW* */, 1, 0));
            put(c, RET_ALLOW);
            put(c, RET_ERRNO(EPERM));
        } else {
            deny(SYS_clone, EPERM);
        }
        struct rule *r = rule(SYS_kill); /* only itself: no kill(-1), no process group, no parent */
        put(r, LOAD_ARG(0));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)me, 1, 0));
        put(r, RET_ERRNO(EPERM));
        put(r, RET_ALLOW);
    } else {
        /* children exist: still no signal to "everyone" (pid -1), groups (pid <= 0), the supervisor */
        struct rule *r = rule(SYS_kill);
        put(r, LOAD_ARG(0));
        put(r, JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, 3, 0));
        put(r, JUMP(BPF_JMP | BPF_JGT | BPF_K, 1, 0, 2));
        put(r, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sup, 1, 0));
        put(r, RET_ALLOW);
        put(r, RET_ERRNO(EPERM));
        deny_arg(SYS_clone, 0, 0, 0x7E020080u /* CLONE_NEW*: no new namespaces */);
    }
    qsort(rules, (size_t)nrules, sizeof rules[0], by_nr);
    emit(INSN(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    emit(RET_KILL);
    emit(LOAD_NR);
    emit(JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1)); /* x32 ABI */
    emit(RET_KILL);
    emit(JUMP(BPF_JMP | BPF_JGT | BPF_K, LAST_KNOWN_SYSCALL, 0, 1));
    emit(RET_ERRNO(ENOSYS));
    emit_tree(0, nrules);
    if (np >= MAXF || nrules >= 191) return -1;
    struct sock_fprog fp = { .len = (unsigned short)np, .filter = prog };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

/* A copy of path at a random address (random page, random offset): the only pointer
 * execve will accept. The program that runs after exec cannot know it. */
static char *random_copy(const char *path) {
    uint64_t r[2] = {0, 0};
    size_t len = strlen(path) + 1;
    if (getrandom(r, sizeof r, 0) != sizeof r || len > 2048) return NULL;
    for (int attempt = 0; attempt < 8; attempt++, r[0] = r[0] * 6364136223846793005ULL + 1442695040888963407ULL) {
        uintptr_t page = 0x100000000000ULL + ((r[0] >> 16) % 0x500000000ULL) * 4096; /* 16..~37 TiB */
        char *p = mmap((void *)page, 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED) continue;
        char *dst = p + r[1] % (4096 - len);
        memcpy(dst, path, len);
        return dst;
    }
    return NULL;
}

/* ---- a fresh root per run -------------------------------------------------- */

#define MAX_ENTRIES 256
struct entry { char path[512]; char target[512]; int kind; }; /* 0 dir, 1 file, 2 link */
static struct entry entries[MAX_ENTRIES];
static int nentries, fresh_root;
#define MAX_THREADS 16 /* threads a run may start besides its main one */
#define OMP_THREADS "2"
/* /proc/sys/kernel/ns_last_pid of the sandbox's pid namespace, open for writing (-1: not
 * here, and runs get no threads) */
static int last_pid_fd = -1;

/* With --fresh-root: ns_last_pid, made writable in our own mount namespace (bubblewrap
 * binds /proc/sys read-only; runs never see /proc) and kept open. */
static void open_last_pid(void) {
    const char *path = "/proc/sys/kernel/ns_last_pid";
    last_pid_fd = open(path, O_WRONLY | O_CLOEXEC);
    if (last_pid_fd >= 0) return;
    if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return;
    if (mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) return;
    last_pid_fd = open(path, O_WRONLY | O_CLOEXEC);
}
/* no /dev/zero: a shared mapping of it is an inode of the internal shmem mount (see
 * seccomp), and seccomp cannot tell which file an mmap maps */
static const char *const devices[] = {"/dev/null", "/dev/full", "/dev/random", "/dev/urandom"};
#define ROOT "/sc/root"
#define EXEC_PATH "/sc/program" /* every binary's path in its fresh root */
#define WORK_DIR "/box" /* every run's working folder: its data files, nothing else */
#define MAX_DATA_FILES 64
/* The supervisor's scratch: a fresh tmpfs per run (fresh root only), mounted here in the
 * supervisor's own namespace, never shown to a run as it is. box/ is the run's working
 * folder (bound at WORK_DIR): writable copies of its data files, and whatever it writes
 * there, read back after the run and gone with it; pipe/1 and pipe/2 are the FIFOs its
 * stdout and stderr are (/dev/stdout and /dev/stderr name them: a reopen of either is
 * the same pipe, as Linux's /proc/self/fd links give). */
#define SCRATCH "/sc/work"
#define SCRATCH_BOX SCRATCH "/box"
#define MAX_WRITTEN 64 /* files read back from a run's working folder */

/* The sandbox's own files (everything outside /proc, /dev, /sc): replicated per run. */
static void collect(const char *dir) {
    DIR *d = opendir(*dir ? dir : "/");
    struct dirent *e;
    while (d && (e = readdir(d)) && nentries < MAX_ENTRIES) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct entry *x = &entries[nentries];
        if ((size_t)snprintf(x->path, sizeof x->path, "%s/%s", dir, e->d_name) >= sizeof x->path) continue;
        if (!strcmp(x->path, "/proc") || !strcmp(x->path, "/dev") || !strcmp(x->path, "/sc")) continue;
        struct stat st;
        if (lstat(x->path, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(x->path, x->target, sizeof x->target - 1);
            if (n < 0) continue;
            x->target[n] = 0;
            x->kind = 2;
            nentries++;
        } else if (S_ISDIR(st.st_mode)) {
            x->kind = 0;
            nentries++;
            collect(x->path);
        } else if (S_ISREG(st.st_mode)) {
            x->kind = 1;
            nentries++;
        }
    }
    if (d) closedir(d);
}

static int bind_file(const char *source, const char *where) {
    char dest[1024];
    snprintf(dest, sizeof dest, ROOT "%s", where);
    int fd = open(dest, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) return -1;
    close(fd);
    if (mount(source, dest, NULL, MS_BIND, NULL)) return -1;
    /* read-only; the flags the kernel locks on it (nodev, noexec, atime) are kept */
    struct statvfs sv;
    if (statvfs(dest, &sv)) return -1;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID;
    if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return mount(NULL, dest, NULL, flags, NULL);
}

static int make_dirs(const char *where) { /* mkdir -p under ROOT */
    char path[1024];
    snprintf(path, sizeof path, ROOT "%s", where);
    for (char *p = path + strlen(ROOT) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0755) && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* Every regular file below dir (host side, at most depth levels deep) copied, writable,
 * to the same path below to; returns -1 on a failure or too many files. */
static int copy_data_files(const char *dir, const char *to, int depth, int *count) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char src[1024], dst[1024], chunk[65536];
    if (!d) return -1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue; /* ".", "..": names never start with a dot */
        snprintf(src, sizeof src, "%s/%s", dir, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        struct stat st;
        if (lstat(src, &st)) { closedir(d); return -1; }
        if (S_ISDIR(st.st_mode) && depth > 0) {
            if ((mkdir(dst, 0755) && errno != EEXIST) || copy_data_files(src, dst, depth - 1, count)) { closedir(d); return -1; }
        } else if (S_ISREG(st.st_mode)) {
            if (++*count > MAX_DATA_FILES) { closedir(d); return -1; }
            int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            ssize_t n = 0;
            while (in >= 0 && out >= 0 && (n = read(in, chunk, sizeof chunk)) > 0)
                if (write(out, chunk, (size_t)n) != n) { n = -1; break; }
            if (in >= 0) close(in);
            if (out >= 0) close(out);
            if (in < 0 || out < 0 || n < 0) { closedir(d); return -1; }
        }
    }
    closedir(d);
    return 0;
}

/* A FIFO at path, opened for reading (non-blocking: *rd) and writing (*wr, blocking). */
static int fifo_pair(const char *path, int *rd, int *wr) {
    if (mkfifo(path, 0600)) return -1;
    *rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*rd < 0) return -1;
    *wr = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* a reader exists: it opens */
    if (*wr < 0) { close(*rd); return -1; }
    return fcntl(*wr, F_SETFL, 0);
}

/* The run's scratch (SCRATCH): a fresh tmpfs holding box/ (the data files of files,
 * writable copies) and the FIFOs of its stdout and stderr (pout, perr: read, write ends).
 * What the run may write there is bounded by out_limit (the tmpfs's size beyond the
 * copies, and RLIMIT_FSIZE). */
static int make_scratch(const char *files, long out_limit, int pout[2], int perr[2]) {
    char opts[128];
    if (mount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=1g,nr_inodes=256,mode=0755")) return -1;
    int count = 0;
    if (mkdir(SCRATCH_BOX, 0755) || mkdir(SCRATCH "/pipe", 0700)) return -1;
    if (strcmp(files, "-") && copy_data_files(files, SCRATCH_BOX, 3, &count)) return -1;
    struct statvfs sv;
    if (statvfs(SCRATCH, &sv)) return -1;
    long used = (long)((sv.f_blocks - sv.f_bfree) * sv.f_frsize);
    snprintf(opts, sizeof opts, "size=%ld,nr_inodes=256,mode=0755", used + (out_limit > 0 ? out_limit : 0) + 65536);
    if (mount(NULL, SCRATCH, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)) return -1;
    if (fifo_pair(SCRATCH "/pipe/1", &pout[0], &pout[1])) return -1;
    if (fifo_pair(SCRATCH "/pipe/2", &perr[0], &perr[1])) { close(pout[0]); close(pout[1]); return -1; }
    return 0;
}

static void drop_scratch(void) { umount2(SCRATCH, MNT_DETACH); }

/* In the child, before exec: a new mount namespace rooted at a fresh tmpfs holding the
 * sandbox's files, the binary, the device nodes, its working folder and its input and
 * output by name (no /proc); then every capability goes. */
static int enter_fresh_root(const char *bin, const char *input, const char *files) {
    char path[1024];
    if (unshare(CLONE_NEWNS)) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return -1;
    if (mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=512,mode=0755")) return -1;
    for (int i = 0; i < nentries; i++) {
        const struct entry *x = &entries[i];
        if (x->kind == 0 && make_dirs(x->path)) return -1;
        if (x->kind == 1 && bind_file(x->path, x->path)) return -1;
        if (x->kind == 2) {
            snprintf(path, sizeof path, ROOT "%s", x->path);
            if (symlink(x->target, path)) return -1;
        }
    }
    /* every binary at one fixed path: the kernel copies the exec path onto the new
       stack (AT_EXECFN), so a binary's own name would shift the stack of every run by
       its length (a program reading an uninitialised stack slot would print one thing
       as the baseline and another as its copy "baseline_2") */
    (void)path;
    if (make_dirs("/sc") || bind_file(bin, EXEC_PATH)) return -1;
    if (make_dirs("/dev")) return -1;
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++)
        if (access(devices[k], F_OK) == 0 && bind_file(devices[k], devices[k])) return -1;
    /* the input by name: /dev/stdin and /dev/fd/0 (opened afresh, as Linux reopens a
       regular file through /proc/self/fd/0); the output by name: the FIFOs stdout and
       stderr are (a reopen of /proc/self/fd/1 on Linux is the same pipe) */
    if (bind_file(input, "/dev/stdin") || make_dirs("/dev/fd") || bind_file(input, "/dev/fd/0")) return -1;
    if (bind_file(SCRATCH "/pipe/1", "/dev/stdout") || bind_file(SCRATCH "/pipe/1", "/dev/fd/1")) return -1;
    if (bind_file(SCRATCH "/pipe/2", "/dev/stderr") || bind_file(SCRATCH "/pipe/2", "/dev/fd/2")) return -1;
    (void)files; /* its copies are in SCRATCH_BOX (make_scratch) */
    if (make_dirs(WORK_DIR) || mount(SCRATCH_BOX, ROOT WORK_DIR, NULL, MS_BIND, NULL)) return -1;
    /* no /proc: every entry looked up there takes an inode number from get_next_ino()
       (a counter later runs read), and its files show machine-wide counters (forks,
       context switches, last pid, inode and file counts) a run could move and read */
    if (mount(NULL, ROOT, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=512,mode=0755")) return -1;
    if (chdir(ROOT) || chroot(".") || chdir(WORK_DIR)) return -1;
    for (int c = 0; c <= 63; c++) prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    return (int)syscall(SYS_capset, &h, none);
}

/* ---- child ------------------------------------------------------------- */

static void set_limit(int res, rlim_t soft, rlim_t hard) {
    struct rlimit rl = { soft, hard };
    setrlimit(res, &rl);
}

#define PROGRAM_NAME "./program"
#define MAX_ARGS 1024
#define MAX_ARG_BYTES (128 << 10)
static char arg_text[MAX_ARG_BYTES];
static char *run_argv[MAX_ARGS + 2];

/* argv for the next run: the fixed name, then the args file's NUL-ended strings */
static int load_args(const char *file) {
    int n = 1;
    run_argv[0] = PROGRAM_NAME;
    run_argv[1] = NULL;
    if (!strcmp(file, "-")) return 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t len = 0;
    ssize_t got;
    while (len < sizeof arg_text && (got = read(fd, arg_text + len, sizeof arg_text - len)) > 0)
        len += (size_t)got;
    close(fd);
    if (len == sizeof arg_text || (len && arg_text[len - 1] != 0)) return -1;
    for (size_t at = 0; at < len; at += strlen(arg_text + at) + 1) {
        if (n > MAX_ARGS) return -1;
        run_argv[n++] = arg_text + at;
    }
    run_argv[n] = NULL;
    return 0;
}

static void child(const struct job *j, int in_fd, int out_w, int err_w, int status_w) {
    char **argv = run_argv;
    /* OpenMP programs (-fopenmp) get a team of OMP_THREADS threads (one would deadlock a
       program whose tasks wait on each other), waiting passively: a run is bound to its
       slot's CPU and CPU time (every thread's) is the measure, so spinning would only
       add noise; where threads are not allowed (last_pid_fd), one */
    char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C",
                     last_pid_fd >= 0 ? "OMP_NUM_THREADS=" OMP_THREADS : "OMP_NUM_THREADS=1",
                     "OMP_WAIT_POLICY=passive", NULL };
    char *path = random_copy(fresh_root ? EXEC_PATH : j->bin);
    int err;
    errno = 0;
    if (!path) goto fail;
    setpgid(0, 0); /* its own group (a session would cost a scheduler autogroup per run) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (fresh_root && enter_fresh_root(j->bin, j->input, j->files)) goto fail;
    if (!fresh_root && strcmp(j->files, "-") && chdir(j->files)) goto fail; /* no sandbox: its folder */
    if (dup2(in_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) goto fail;
    if (status_w != 3) { if (dup2(status_w, 3) < 0) goto fail; status_w = 3; }
    fcntl(status_w, F_SETFD, FD_CLOEXEC);
    syscall(SYS_close_range, 4, ~0U, 0);
    rlim_t cpu = (rlim_t)((j->cpu_ms + 999) / 1000);
    set_limit(RLIMIT_CPU, cpu, cpu + 1);
    set_limit(RLIMIT_AS, (rlim_t)j->mem_mb << 20, (rlim_t)j->mem_mb << 20);
    /* the stack, like the heap, is bounded by RLIMIT_AS (deep recursion is welcome):
       unlimited here also gives threads glibc's 8 MiB default stack rather than a
       reservation the size of the stack limit each (x86-64 keeps its top-down layout) */
    set_limit(RLIMIT_STACK, RLIM_INFINITY, RLIM_INFINITY);
    /* files: only in its working folder (a tmpfs of its own, fresh root), as much as stdout */
    rlim_t fsize = fresh_root && j->out_limit > 0 ? (rlim_t)j->out_limit : 0;
    set_limit(RLIMIT_FSIZE, fsize, fsize);
    set_limit(RLIMIT_CORE, 0, 0);
    set_limit(RLIMIT_NOFILE, 64, 64);
    set_limit(RLIMIT_MEMLOCK, 0, 0);
    set_limit(RLIMIT_MSGQUEUE, 0, 0);
    set_limit(RLIMIT_NICE, 0, 0);
    set_limit(RLIMIT_RTPRIO, 0, 0);
    set_limit(RLIMIT_SIGPENDING, 64, 64); /* queued signals are kernel memory (per host user) */
    if (j->nproc > 0) set_limit(RLIMIT_NPROC, (rlim_t)j->nproc, (rlim_t)j->nproc);
    /* no processes: up to MAX_THREADS threads besides the main one where the thread ids
       they take can be reset before every run (last_pid_fd), none elsewhere; RLIMIT_NPROC
       counts this sandbox's tasks (its own user namespace): the supervisor, the run, its threads */
    int threads = j->nproc <= 0 && last_pid_fd >= 0;
    if (threads) set_limit(RLIMIT_NPROC, (rlim_t)MAX_THREADS + 2, (rlim_t)MAX_THREADS + 2);
    if (install_seccomp(j->nproc > 0, threads, path)) goto fail;
    struct timespec pre;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &pre); /* all of it ours, none the program's */
    long pre_us = pre.tv_sec * 1000000L + pre.tv_nsec / 1000;
    if (write(status_w, &pre_us, sizeof pre_us) != sizeof pre_us) goto fail;
    execve(path, argv, envp);
fail:
    err = errno ? errno : EINVAL;
    {
        long none = -1; /* no CPU figure: the errno follows */
        if (write(status_w, &none, sizeof none) < 0 || write(status_w, &err, sizeof err) < 0) { /* nothing to do */ }
    }
    _exit(127);
}

/* ---- the supervisor's own state, re-asserted around every run ------------- */

struct state {
    struct rlimit rl[RLIM_NLIMITS];
    int prio, policy, ioprio;
    struct sched_param param;
    cpu_set_t cpus;
};
static struct state initial;
static int poisoned; /* a run changed the supervisor beyond repair: every later run fails */

static void read_state(struct state *s) {
    memset(s, 0, sizeof *s);
    for (int r = 0; r < RLIM_NLIMITS; r++) getrlimit(r, &s->rl[r]);
    s->prio = getpriority(PRIO_PROCESS, 0);
    s->policy = sched_getscheduler(0);
    sched_getparam(0, &s->param);
    s->ioprio = (int)syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
    sched_getaffinity(0, sizeof s->cpus, &s->cpus);
}

static void note(struct buf *msg, const char *what, int restore_failed) {
    buf_add(msg, " ", 1, 512);
    buf_add(msg, what, strlen(what), 512);
    if (restore_failed) poisoned = 1;
}

/* Restores rlimits, priority, scheduling policy, I/O priority and affinity to their
 * values at start; names what had changed in msg. */
static void reassert_state(struct buf *msg) {
    struct state now;
    read_state(&now);
    for (int r = 0; r < RLIM_NLIMITS; r++)
        if (memcmp(&now.rl[r], &initial.rl[r], sizeof now.rl[r]))
            note(msg, "rlimit", setrlimit(r, &initial.rl[r]) != 0);
    if (now.prio != initial.prio) note(msg, "priority", setpriority(PRIO_PROCESS, 0, initial.prio) != 0);
    if (now.policy != initial.policy || now.param.sched_priority != initial.param.sched_priority)
        note(msg, "scheduling-policy", sched_setscheduler(0, initial.policy, &initial.param) != 0);
    if (now.ioprio != initial.ioprio)
        note(msg, "io-priority", syscall(SYS_ioprio_set, 1, 0, initial.ioprio) != 0);
    if (!CPU_EQUAL(&now.cpus, &initial.cpus)) {
        note(msg, "cpu-affinity", 0);
        /* restored; where the host's cpuset has since shrunk, what it allows is the new normal */
        if (sched_setaffinity(0, sizeof initial.cpus, &initial.cpus) == 0)
            sched_getaffinity(0, sizeof initial.cpus, &initial.cpus);
        else
            poisoned = 1;
    }
}

/* SysV IPC objects left in the sandbox's IPC namespace (seccomp denies creating them):
 * named in msg and removed. */
static void ipc_leftovers(struct buf *msg) {
    static const char *files[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"};
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(files[k], "re");
        char line[512];
        if (!f) continue;
        for (int n = 0; fgets(line, sizeof line, f); n++) {
            int key, id;
            if (n == 0 || sscanf(line, "%d %d", &key, &id) != 2) continue;
            int gone = k == 0 ? shmctl(id, IPC_RMID, NULL) : k == 1 ? semctl(id, 0, IPC_RMID) : msgctl(id, IPC_RMID, NULL);
            note(msg, files[k] + 13, gone != 0);
        }
        fclose(f);
    }
}

/* ---- supervisor -------------------------------------------------------- */

#define RUN_PID 2 /* every run's pid in the sandbox's pid namespace (we are 1); spawn()
                     writes it to ns_last_pid */
struct clone_args_v2 { /* struct clone_args up to set_tid_size (CLONE_ARGS_SIZE_VER1) */
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size;
};

/* fork(), but in the sandbox every run gets the same pid (RUN_PID, through clone3's
 * set_tid: we hold CAP_SYS_ADMIN over the pid namespace): pids would otherwise count the
 * runs, and a run that knows its index can tell its warm-up or timing runs from others.
 * Elsewhere (no namespace of ours), or should the kernel refuse it, plain fork(). */
static pid_t spawn(void) {
    static int fixed = 1;
    /* the ids a run's threads take come from the pid namespace's cursor, which set_tid
       leaves alone: put back before every run, so that they count nothing either */
    if (last_pid_fd >= 0 && pwrite(last_pid_fd, "2", 1, 0) != 1) {
        close(last_pid_fd);
        last_pid_fd = -1; /* threads denied from here on */
    }
    if (fresh_root && fixed) {
        pid_t want = RUN_PID;
        struct clone_args_v2 a;
        memset(&a, 0, sizeof a);
        a.exit_signal = SIGCHLD;
        a.set_tid = (uint64_t)(uintptr_t)&want;
        a.set_tid_size = 1;
        long r = syscall(SYS_clone3, &a, sizeof a);
        if (r >= 0) return (pid_t)r;
        if (errno != EEXIST) fixed = 0; /* not allowed here: never again */
    }
    return fork();
}

/* /proc/<pid>/<name> read into text (NUL-terminated); 0 when it cannot be read. */
static int read_proc(pid_t pid, const char *name, char *text, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, size - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    return 1;
}

static pid_t parent_of(pid_t pid) {
    char text[1024];
    if (!read_proc(pid, "stat", text, sizeof text)) return -1;
    char *p = strrchr(text, ')');
    int ppid = -1;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1) return -1;
    return ppid;
}

/* Kill every remaining descendant (they are reparented to us); returns how many. */
static int kill_descendants(void) {
    pid_t me = getpid();
    int killed = 0;
    for (int round = 0; round < 10000; round++) {
        int seen = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            pid_t pid = (pid_t)atoi(e->d_name);
            if (pid <= 0 || pid == me || parent_of(pid) != me) continue;
            kill(pid, SIGKILL);
            seen++;
        }
        if (d) closedir(d);
        int reaped = 0;
        while (waitpid(-1, NULL, WNOHANG | __WALL) > 0) reaped++;
        killed += reaped;
        if (!seen && waitpid(-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD) break;
        if (!reaped) usleep(200);
    }
    return killed;
}

static void reply(const char *outcome, int code, int sig, const struct rusage *ru, long wall_us,
                  int leftover, struct buf *out, struct buf *err, long blocked) {
    long user = ru ? ru->ru_utime.tv_sec * 1000000L + ru->ru_utime.tv_usec : 0;
    long sys = ru ? ru->ru_stime.tv_sec * 1000000L + ru->ru_stime.tv_usec : 0;
    printf("RES %s %d %d %ld %ld %ld %ld %d %zu %zu %ld\n", outcome, code, sig, user, sys, wall_us,
           ru ? ru->ru_maxrss : 0L, leftover, out->len, err->len, blocked);
    if (out->len) fwrite(out->data, 1, out->len, stdout);
    if (err->len) fwrite(err->data, 1, err->len, stdout);
    fflush(stdout);
}

/* Takes us microseconds of CPU time out of ru: system time first (set-up is mostly
 * system calls), then user time. */
static void take_out(struct rusage *ru, long us) {
    long sys = ru->ru_stime.tv_sec * 1000000L + ru->ru_stime.tv_usec;
    long user = ru->ru_utime.tv_sec * 1000000L + ru->ru_utime.tv_usec;
    long from_sys = us < sys ? us : sys, from_user = us - from_sys < user ? us - from_sys : user;
    sys -= from_sys, user -= from_user;
    ru->ru_stime.tv_sec = sys / 1000000L, ru->ru_stime.tv_usec = sys % 1000000L;
    ru->ru_utime.tv_sec = user / 1000000L, ru->ru_utime.tv_usec = user % 1000000L;
}

/* Wall time the process has spent blocked or asleep so far: wall - on-CPU - runnable
 * (waiting for a CPU, which a busy machine adds and the program cannot help); -1 when
 * /proc/<pid>/schedstat is missing (no CONFIG_SCHED_INFO). */
static long blocked_us(pid_t pid, long wall_us) {
    char text[1024];
    if (!read_proc(pid, "schedstat", text, sizeof text)) return -1;
    unsigned long long run_ns = 0, wait_ns = 0;
    if (sscanf(text, "%llu %llu", &run_ns, &wait_ns) != 2) return -1;
    long busy = (long)((run_ns + wait_ns) / 1000ULL);
    /* threads: the program is busy while any of them runs or waits for a CPU (one
       joining the others sleeps meanwhile): the live threads' figures summed, plus the
       CPU time of threads gone (the process's total, /proc/<pid>/stat, less the live
       ones' share); the main thread's own figure when that is larger (a program that
       never started a thread: the same figure) */
    int threads = 0;
    char *p = read_proc(pid, "stat", text, sizeof text) ? strrchr(text, ')') : NULL;
    unsigned long long ut = 0, st = 0;
    long tick = sysconf(_SC_CLK_TCK) > 0 ? 1000000L / sysconf(_SC_CLK_TCK) : 10000L;
    if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %d",
                    &ut, &st, &threads) == 3 && (threads > 1 || (long)(ut + st) * tick > (long)(run_ns / 1000ULL) + 2 * tick)) {
        long all = 0, live_run = 0;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", pid);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            pid_t tid = (pid_t)atoi(e->d_name);
            if (tid <= 0) continue;
            char name[48];
            snprintf(name, sizeof name, "task/%d/schedstat", tid);
            unsigned long long r = 0, w = 0;
            if (!read_proc(pid, name, text, sizeof text) || sscanf(text, "%llu %llu", &r, &w) != 2) continue;
            all += (long)((r + w) / 1000ULL);
            live_run += (long)(r / 1000ULL);
        }
        if (d) closedir(d);
        long gone = (long)(ut + st) * tick - live_run;
        if (gone > 0) all += gone;
        if (all > busy) busy = all;
    }
    long b = wall_us - busy;
    return b > 0 ? b : 0;
}

static int drain(int fd, struct buf *b, size_t keep, long limit, int *over) {
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
    if (limit >= 0 && b->len + (size_t)n > (size_t)limit) *over = 1;
    buf_add(b, chunk, (size_t)n, keep);
    return 1;
}

/* The whole of a regular file (not following a link, not blocking on a FIFO) into b, at
 * most keep bytes; -1 if it cannot be read. */
static int read_all(const char *path, struct buf *b, size_t keep) {
    char chunk[65536];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0 && b->len < keep) buf_add(b, chunk, (size_t)n, keep);
    close(fd);
    return n < 0 ? -1 : 0;
}

static char written[MAX_WRITTEN][512];

static void list_written(const char *dir, const char *rel, int depth, int *n) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024], sub[512];
    while (d && (e = readdir(d)) && *n < MAX_WRITTEN) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= sizeof sub) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st)) continue;
        if (S_ISDIR(st.st_mode) && depth > 0) {
            chmod(path, 0700); /* ours (one uid): a folder the run closed is read all the same */
            list_written(path, sub, depth - 1, n);
        } else if (S_ISREG(st.st_mode)) {
            strcpy(written[(*n)++], sub);
        }
    }
    if (d) closedir(d);
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* What the run left in its working folder, appended to its stdout (out, at most keep
 * bytes): every regular file that is not one of its data files unchanged, by name, after
 * a head that says how long stdout was (so no program can print what looks like a file
 * it did not write). Nothing when it wrote nothing. */
static void read_back(const char *files, struct buf *out, size_t keep) {
    int n = 0, head = 0;
    char path[1024], line[700];
    list_written(SCRATCH_BOX, "", 4, &n);
    qsort(written, (size_t)n, sizeof written[0], by_name);
    size_t stdout_len = out->len;
    for (int k = 0; k < n; k++) {
        struct buf data = {0}, orig = {0};
        snprintf(path, sizeof path, SCRATCH_BOX "/%s", written[k]);
        chmod(path, 0600);
        int bad = read_all(path, &data, keep);
        if (!bad && strcmp(files, "-")) {
            snprintf(path, sizeof path, "%s/%s", files, written[k]);
            if (read_all(path, &orig, keep) == 0 && orig.len == data.len && !memcmp(orig.data, data.data, data.len)) {
                free(data.data); free(orig.data);
                continue; /* a data file as shipped */
            }
        }
        if (!head++) {
            snprintf(line, sizeof line, "\n[files the run wrote, after %zu bytes of stdout]\n", stdout_len);
            buf_add(out, line, strlen(line), keep);
        }
        if (bad) snprintf(line, sizeof line, "== %s (unreadable) ==\n", written[k]);
        else snprintf(line, sizeof line, "== %s (%zu bytes) ==\n", written[k], data.len);
        buf_add(out, line, strlen(line), keep);
        buf_add(out, data.data, data.len, keep);
        buf_add(out, "\n", 1, keep);
        free(data.data); free(orig.data);
    }
}

static void run_job(const struct job *j) {
    struct buf out = {0}, err = {0};
    struct rusage ru = {0};
    int pout[2], perr[2], pst[2], in_fd, status = 0, over = 0, timed_out = 0;
    struct buf changed = {0};
    reassert_state(&changed); /* nothing should have changed since the last check */
    if (poisoned) {
        static const char why[] = "[sandbox] the supervisor was changed beyond repair:";
        buf_add(&err, why, sizeof why - 1, ERR_KEEP);
        buf_add(&err, changed.data, changed.len, ERR_KEEP);
        reply("tampered", 0, 0, NULL, 0, 0, &out, &err, 0);
        free(err.data); free(changed.data);
        return;
    }
    errno = 0;
    if (load_args(j->args)) {
        reply("spawn_error", errno ? errno : E2BIG, 0, NULL, 0, 0, &out, &err, 0);
        return;
    }
    in_fd = open(j->input, O_RDONLY | O_CLOEXEC);
    int piped = fresh_root ? make_scratch(j->files, j->out_limit, pout, perr) : pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC);
    if (in_fd < 0 || piped || pipe2(pst, O_CLOEXEC)) {
        int why = errno;
        if (!piped) { close(pout[0]); close(pout[1]); close(perr[0]); close(perr[1]); }
        if (in_fd >= 0) close(in_fd);
        if (fresh_root) drop_scratch();
        reply("spawn_error", why, 0, NULL, 0, 0, &out, &err, 0);
        return;
    }
    long start = now_us();
    pid_t pid = spawn();
    if (pid == 0) child(j, in_fd, pout[1], perr[1], pst[1]);
    close(in_fd); close(pout[1]); close(perr[1]); close(pst[1]);
    /* the child writes its CPU time before exec (a long >= 0), or -1 then an errno when
       it could not start; the pipe closes at exec */
    int exec_errno = 0, failed = pid < 0;
    long pre_us = 0, word = 0;
    for (int k = 0; !failed && k < 2; k++) {
        ssize_t got = read(pst[0], &word, sizeof word);
        if (got == 0 && k == 1) break; /* exec'd */
        if (got != sizeof word || word < 0) {
            failed = 1;
            if (got == sizeof word && read(pst[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
        } else {
            pre_us = word;
        }
    }
    if (failed) {
        if (pid > 0) waitpid(pid, NULL, 0);
        close(pst[0]); close(pout[0]); close(perr[0]);
        if (fresh_root) drop_scratch();
        reply("spawn_error", pid < 0 ? errno : exec_errno ? exec_errno : EINVAL, 0, NULL, 0, 0, &out, &err, 0);
        return;
    }
    close(pst[0]);
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    /* hold the run's mount namespace: its teardown (unmounting the fresh root) then
       happens when we let go, after the run, on our CPU time rather than the program's */
    int nsfd = -1;
    if (fresh_root) {
        char nspath[64];
        snprintf(nspath, sizeof nspath, "/proc/%d/ns/mnt", pid);
        nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
    }
    fcntl(pout[0], F_SETFL, O_NONBLOCK);
    fcntl(perr[0], F_SETFL, O_NONBLOCK);
    struct pollfd fds[3] = {{pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}, {pfd, POLLIN, 0}};
    long deadline = start + j->wall_ms * 1000L, blocked = -1, next_look = start + 20000;
    int idle = 0;
    for (;;) {
        long t = now_us(), left = (deadline - t) / 1000;
        if (left <= 0) { timed_out = 1; break; }
        /* every run is watched the same way (the same wake-ups, whether or not it has a
           sleeping allowance), so that watching costs baseline and candidate alike */
        if (t >= next_look) {
            blocked = blocked_us(pid, t - start);
            next_look = t + 20000;
            if (j->idle_ms >= 0 && blocked > j->idle_ms * 1000L) { idle = 1; break; } /* asleep past its allowance: stopped */
        }
        long wait_ms = 25;
        if (poll(fds, 3, (int)(left > wait_ms ? wait_ms : left)) < 0 && errno != EINTR) break;
        if (fds[0].revents && drain(pout[0], &out, (size_t)j->out_limit, j->out_limit, &over) < 0) fds[0].fd = -1;
        if (over) break;
        if (fds[1].revents && drain(perr[0], &err, ERR_KEEP, -1, &over) < 0) fds[1].fd = -1;
        if (fds[2].revents) break;
    }
    if (!idle) blocked = blocked_us(pid, now_us() - start); /* a zombie still says */
    if (timed_out || over || idle) kill(-pid, SIGKILL), kill(pid, SIGKILL);
    wait4(pid, &status, __WALL, &ru);
    long wall = now_us() - start;
    take_out(&ru, pre_us);
    /* what the program wrote before exiting is still in the pipes */
    while (!over && fds[0].fd >= 0 && drain(pout[0], &out, (size_t)j->out_limit, j->out_limit, &over) > 0) {}
    while (fds[1].fd >= 0 && drain(perr[0], &err, ERR_KEEP, -1, &over) > 0) {}
    close(pout[0]); close(perr[0]);
    if (pfd >= 0) close(pfd);
    if (nsfd >= 0) close(nsfd);
    int leftover = kill_descendants();
    if (fresh_root) {
        size_t keep = j->out_limit >= 0 ? (size_t)j->out_limit + 1 : (size_t)1 << 30;
        if (!over) read_back(j->files, &out, keep);
        if (j->out_limit >= 0 && out.len > (size_t)j->out_limit) over = 1;
        drop_scratch();
    }
    reassert_state(&changed);
    ipc_leftovers(&changed);
    long cpu_us = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    const char *outcome = WIFSIGNALED(status) ? "signaled" : "exited";
    if (over) outcome = "output_limit";
    else if (timed_out || sig == SIGXCPU || cpu_us > j->cpu_ms * 1000L) outcome = "timeout"; /* rlimit is whole seconds */
    else if (idle) outcome = "idle";
    if (over && out.len > (size_t)j->out_limit) out.len = (size_t)j->out_limit;
    if (changed.len) { /* the program changed its supervisor or left IPC objects: its failure */
        static const char head[] = "\n[sandbox] the program changed its sandbox:";
        outcome = "tampered";
        if (err.len > ERR_KEEP - 600) err.len = ERR_KEEP - 600;
        buf_add(&err, head, sizeof head - 1, ERR_KEEP);
        buf_add(&err, changed.data, changed.len, ERR_KEEP);
    }
    reply(outcome, WIFEXITED(status) ? WEXITSTATUS(status) : -1, sig, &ru, wall, leftover, &out, &err, blocked);
    free(out.data); free(err.data); free(changed.data);
}

int main(int argc, char **argv) {
    char line[9000];
    struct job j;
    if (argc > 1 && !strcmp(argv[1], "--fresh-root")) {
        fresh_root = 1;
        collect("");
        open_last_pid();
    }
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    read_state(&initial);
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    printf("READY\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        j.idle_ms = -1;
        strcpy(j.args, "-");
        strcpy(j.files, "-");
        if (sscanf(line, "RUN %4095s %4095s %ld %ld %ld %ld %ld %ld %4095s %4095s", j.bin, j.input, &j.cpu_ms,
                   &j.wall_ms, &j.mem_mb, &j.out_limit, &j.nproc, &j.idle_ms, j.args, j.files) >= 7) {
            run_job(&j);
        } else if (strncmp(line, "QUIT", 4) == 0) {
            break;
        } else {
            printf("ERR bad command\n");
            fflush(stdout);
        }
    }
    kill_descendants();
    return 0;
}
