/* Threads in the sandbox (bounded: at most 64 tries, each thread lives at most 2 s or spins a
 * bounded loop). MODE 1: start 64 threads, each of which tries to start two more (a
 * thread bomb, capped by the sandbox's task limit); print how many started, the id the
 * first thread got (a counter of earlier runs' threads if the sandbox did not reset it),
 * whether a thread could fork or clone a process (no CLONE_THREAD) and the honest sum.
 * MODE 2: the main thread sleeps in pthread_join while one worker computes for about
 * SPIN iterations (busy, not idle). MODE 3: every thread sleeps (idle). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"

static atomic_int made;
static long first_tid;
static int forked = -1, cloned = -1;

static atomic_int stop;

/* alive until main has tried them all (at most 2 s): the count is of threads at once */
static void hold(void) { for (int i = 0; i < 2000 && !atomic_load(&stop); i++) usleep(1000); }

static void *leaf(void *arg) { (void)arg; hold(); return NULL; }

static void *node(void *arg) {
    if (arg) first_tid = syscall(SYS_gettid);
    pthread_t t[2];
    int mine = 0;
    for (int i = 0; i < 2; i++)
        if (atomic_load(&made) < 64 && pthread_create(&t[mine], NULL, leaf, NULL) == 0) mine++, atomic_fetch_add(&made, 1);
    hold();
    for (int i = 0; i < mine; i++) pthread_join(t[i], NULL);
    return NULL;
}

static int child_fn(void *arg) { (void)arg; return 0; }

static void *spin(void *arg) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < (unsigned long)(size_t)arg; i++) x += i;
    return NULL;
}

static void *nap(void *arg) { (void)arg; sleep(3); return NULL; }

int main(void) {
    pthread_t t[64];
    int n = 0;
#if MODE == 1
    for (long i = 0; i < 64 && atomic_load(&made) < 64; i++)
        if (pthread_create(&t[n], NULL, node, (void *)(i == 0)) == 0) n++, atomic_fetch_add(&made, 1);
    pid_t p = fork();
    if (p == 0) _exit(0);
    forked = p > 0;
    static char stack[1 << 16];
    int c = clone(child_fn, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
    cloned = c > 0;
    usleep(100000); /* the threads' own tries */
    atomic_store(&stop, 1);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    printf("made %d first %ld fork %d clone %d sum %lld\n", atomic_load(&made), first_tid, forked, cloned, honest_sum());
#elif MODE == 2
    pthread_create(&t[0], NULL, spin, (void *)(size_t)SPIN);
    pthread_join(t[0], NULL);
    printf("%lld\n", honest_sum());
#else
    pthread_create(&t[0], NULL, nap, NULL);
    pthread_join(t[0], NULL);
    printf("%lld\n", honest_sum());
#endif
    return 0;
}
