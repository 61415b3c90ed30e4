/* Changes its supervisor (pid 1) with one call (CALL 0..12): limits, priority,
 * scheduling, affinity, I/O priority, memory placement, queued signals. Answers only
 * if the call succeeded. Bounded: one call, nothing outside the sandbox is touched. */
#define _GNU_SOURCE
#include <linux/ioprio.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"
#ifndef CALL
#define CALL 0
#endif
struct attr { unsigned size, policy; unsigned long long flags; int nice; unsigned prio; unsigned long long rt[3]; };
int main(void) {
    long r = -1;
    struct rlimit low = {64, 64};
    struct sched_param param = {0};
    struct attr attr = {sizeof attr, SCHED_OTHER, 0, 19, 0, {0, 0, 0}};
    siginfo_t info;
    unsigned long nodes = 1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    memset(&info, 0, sizeof info);
    info.si_code = SI_QUEUE;
    switch (CALL) {
    case 0: r = syscall(SYS_prlimit64, 1, RLIMIT_NOFILE, &low, NULL); break;
    case 1: r = setpriority(PRIO_PROCESS, 1, 19); break;
    case 2: r = setpriority(PRIO_USER, 0, 19); break;
    case 3: r = sched_setaffinity(1, sizeof one, &one); break;
    case 4: r = sched_setscheduler(1, SCHED_IDLE, &param); break;
    case 5: r = syscall(SYS_sched_setattr, 1, &attr, 0); break;
    case 6: r = syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 1, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)); break;
    case 7: r = syscall(SYS_ioprio_set, IOPRIO_WHO_USER, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)); break;
    case 8: r = syscall(SYS_migrate_pages, 1, 2, &nodes, &nodes); break;
    case 9: r = syscall(SYS_move_pages, 1, 0, NULL, NULL, NULL, 0); break;
    case 10: r = syscall(SYS_rt_sigqueueinfo, 1, SIGUSR1, &info); break;
    case 11: r = syscall(SYS_rt_tgsigqueueinfo, 1, 1, SIGUSR1, &info); break;
    case 12: r = sched_setparam(1, &param); break;
    }
    if (r < 0) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
