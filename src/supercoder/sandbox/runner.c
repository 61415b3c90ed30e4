/*
 * supercoder sandbox runner: supervises untrusted programs, one at a time.
 *
 * Runs as pid 1 of its own pid namespace inside bubblewrap (or as a plain process
 * with --unsafe-no-sandbox). Reads one command per line on stdin:
 *
 *   RUN <binary> <input-file> <cpu_ms> <wall_ms> <mem_mb> <out_limit> <nproc>
 *
 * and answers on stdout with a header line followed by the captured bytes:
 *
 *   RES <outcome> <exit> <signal> <user_us> <sys_us> <wall_us> <maxrss_kb>
 *       <leftover> <out_len> <err_len>\n<stdout bytes><stderr bytes>
 *
 * outcome: exited | signaled | timeout | output_limit | spawn_error.
 * Each child gets rlimits, no_new_privs and a seccomp filter before exec; after it
 * exits, every remaining descendant is killed (we are a child subreaper) and
 * counted as "leftover".
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERR_KEEP 8192

struct job {
    char bin[4096], input[4096];
    long cpu_ms, wall_ms, mem_mb, out_limit, nproc;
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

#define MAXF 256
static struct sock_filter prog[MAXF];
static int np;

static void emit(struct sock_filter f) { if (np < MAXF) prog[np++] = f; }
static void deny(int nr, int err) {
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)));
}
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG0 BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))

/* nr may only target our own pid (arg0 == pid); anything else gets EPERM. */
static void self_only(int nr, pid_t pid) {
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
    emit((struct sock_filter)LOAD_ARG0);
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)pid, 0, 1));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
}

static int install_seccomp(int allow_procs) {
    static const int denied[] = {
        SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_socket, SYS_socketpair,
        SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4, SYS_mount, SYS_umount2,
        SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns, SYS_bpf, SYS_perf_event_open,
        SYS_keyctl, SYS_add_key, SYS_request_key, SYS_userfaultfd, SYS_io_uring_setup,
        SYS_kexec_load, SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_reboot,
        SYS_swapon, SYS_swapoff, SYS_acct, SYS_personality, SYS_name_to_handle_at,
        SYS_open_by_handle_at, SYS_kcmp, SYS_iopl, SYS_ioperm, SYS_fanotify_init,
        SYS_tkill, SYS_mknod, SYS_mknodat, SYS_setuid, SYS_setgid, SYS_setreuid,
        SYS_setregid, SYS_setresuid, SYS_setresgid, SYS_setgroups, SYS_pidfd_open,
        SYS_pidfd_send_signal, SYS_pidfd_getfd,
    };
    pid_t me = getpid();
    np = 0;
    emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    emit((struct sock_filter)LOAD_NR);
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1)); /* x32 ABI */
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(denied[i], EPERM);
    if (!allow_procs) {
        deny(SYS_fork, EPERM);
        deny(SYS_vfork, EPERM);
        deny(SYS_clone, EPERM);
        deny(SYS_clone3, ENOSYS);
        /* signals only to ourselves: no kill(-1), no process groups, no parent */
        self_only(SYS_kill, me);
        emit((struct sock_filter)LOAD_NR);
        self_only(SYS_tgkill, me);
        emit((struct sock_filter)LOAD_NR);
    } else {
        /* children exist: still forbid signalling "everyone" (pid -1) and groups (pid <= 0) */
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 0, 4));
        emit((struct sock_filter)LOAD_ARG0);
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, 1, 0));
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
        emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
        emit((struct sock_filter)LOAD_NR);
        deny(SYS_clone3, ENOSYS);
    }
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    if (np >= MAXF) return -1;
    struct sock_fprog fp = { .len = (unsigned short)np, .filter = prog };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

/* ---- child ------------------------------------------------------------- */

static void set_limit(int res, rlim_t soft, rlim_t hard) {
    struct rlimit rl = { soft, hard };
    setrlimit(res, &rl);
}

static void child(const struct job *j, int in_fd, int out_w, int err_w, int status_w) {
    char *argv[] = { (char *)j->bin, NULL };
    /* OpenMP programs (-fopenmp) run one thread: thread creation is denied, CPU time is
       the measure, and parallel reductions would make outputs non-deterministic */
    char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "OMP_NUM_THREADS=1", NULL };
    int err;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(in_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) goto fail;
    if (status_w != 3) { if (dup2(status_w, 3) < 0) goto fail; status_w = 3; }
    fcntl(status_w, F_SETFD, FD_CLOEXEC);
    syscall(SYS_close_range, 4, ~0U, 0);
    rlim_t cpu = (rlim_t)((j->cpu_ms + 999) / 1000);
    set_limit(RLIMIT_CPU, cpu, cpu + 1);
    set_limit(RLIMIT_AS, (rlim_t)j->mem_mb << 20, (rlim_t)j->mem_mb << 20);
    set_limit(RLIMIT_STACK, (rlim_t)256 << 20, (rlim_t)256 << 20);
    set_limit(RLIMIT_FSIZE, 0, 0);
    set_limit(RLIMIT_CORE, 0, 0);
    set_limit(RLIMIT_NOFILE, 64, 64);
    set_limit(RLIMIT_MEMLOCK, 0, 0);
    set_limit(RLIMIT_MSGQUEUE, 0, 0);
    if (j->nproc > 0) set_limit(RLIMIT_NPROC, (rlim_t)j->nproc, (rlim_t)j->nproc);
    if (install_seccomp(j->nproc > 0)) goto fail;
    execve(j->bin, argv, envp);
fail:
    err = errno;
    if (write(status_w, &err, sizeof err) < 0) { /* nothing to do */ }
    _exit(127);
}

/* ---- supervisor -------------------------------------------------------- */

static pid_t parent_of(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
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
                  int leftover, struct buf *out, struct buf *err) {
    long user = ru ? ru->ru_utime.tv_sec * 1000000L + ru->ru_utime.tv_usec : 0;
    long sys = ru ? ru->ru_stime.tv_sec * 1000000L + ru->ru_stime.tv_usec : 0;
    printf("RES %s %d %d %ld %ld %ld %ld %d %zu %zu\n", outcome, code, sig, user, sys, wall_us,
           ru ? ru->ru_maxrss : 0L, leftover, out->len, err->len);
    if (out->len) fwrite(out->data, 1, out->len, stdout);
    if (err->len) fwrite(err->data, 1, err->len, stdout);
    fflush(stdout);
}

static int drain(int fd, struct buf *b, size_t keep, long limit, int *over) {
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
    if (limit >= 0 && b->len + (size_t)n > (size_t)limit) *over = 1;
    buf_add(b, chunk, (size_t)n, keep);
    return 1;
}

static void run_job(const struct job *j) {
    struct buf out = {0}, err = {0};
    struct rusage ru = {0};
    int pout[2], perr[2], pst[2], in_fd, status = 0, over = 0, timed_out = 0;
    in_fd = open(j->input, O_RDONLY | O_CLOEXEC);
    if (in_fd < 0 || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC) || pipe2(pst, O_CLOEXEC)) {
        reply("spawn_error", errno, 0, NULL, 0, 0, &out, &err);
        return;
    }
    long start = now_us();
    pid_t pid = fork();
    if (pid == 0) child(j, in_fd, pout[1], perr[1], pst[1]);
    close(in_fd); close(pout[1]); close(perr[1]); close(pst[1]);
    int exec_errno = 0;
    if (pid < 0 || read(pst[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
        if (pid > 0) waitpid(pid, NULL, 0);
        close(pst[0]); close(pout[0]); close(perr[0]);
        reply("spawn_error", pid < 0 ? errno : exec_errno, 0, NULL, 0, 0, &out, &err);
        return;
    }
    close(pst[0]);
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    fcntl(pout[0], F_SETFL, O_NONBLOCK);
    fcntl(perr[0], F_SETFL, O_NONBLOCK);
    struct pollfd fds[3] = {{pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}, {pfd, POLLIN, 0}};
    long deadline = start + j->wall_ms * 1000L;
    for (;;) {
        long left = (deadline - now_us()) / 1000;
        if (left <= 0) { timed_out = 1; break; }
        if (poll(fds, 3, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR) break;
        if (fds[0].revents && drain(pout[0], &out, (size_t)j->out_limit, j->out_limit, &over) < 0) fds[0].fd = -1;
        if (over) break;
        if (fds[1].revents && drain(perr[0], &err, ERR_KEEP, -1, &over) < 0) fds[1].fd = -1;
        if (fds[2].revents) break;
    }
    if (timed_out || over) kill(-pid, SIGKILL), kill(pid, SIGKILL);
    wait4(pid, &status, __WALL, &ru);
    long wall = now_us() - start;
    /* what the program wrote before exiting is still in the pipes */
    while (!over && fds[0].fd >= 0 && drain(pout[0], &out, (size_t)j->out_limit, j->out_limit, &over) > 0) {}
    while (fds[1].fd >= 0 && drain(perr[0], &err, ERR_KEEP, -1, &over) > 0) {}
    close(pout[0]); close(perr[0]);
    if (pfd >= 0) close(pfd);
    int leftover = kill_descendants();
    long cpu_us = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    const char *outcome = WIFSIGNALED(status) ? "signaled" : "exited";
    if (over) outcome = "output_limit";
    else if (timed_out || sig == SIGXCPU || cpu_us > j->cpu_ms * 1000L) outcome = "timeout"; /* rlimit is whole seconds */
    if (over && out.len > (size_t)j->out_limit) out.len = (size_t)j->out_limit;
    reply(outcome, WIFEXITED(status) ? WEXITSTATUS(status) : -1, sig, &ru, wall, leftover, &out, &err);
    free(out.data); free(err.data);
}

int main(void) {
    char line[9000];
    struct job j;
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    printf("READY\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "RUN %4095s %4095s %ld %ld %ld %ld %ld", j.bin, j.input, &j.cpu_ms,
                   &j.wall_ms, &j.mem_mb, &j.out_limit, &j.nproc) == 7) {
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
