/* Looks for paths shared by every run of a sandbox: the inputs folder, the runner, the
 * other binaries, the sandbox's /dev. Whatever a run looks up there (negative dentries
 * of names it tried, the inode cache) would outlive it, for the next run to time. Answers
 * only if one of them is visible. */
#include <sys/stat.h>
#include "common.h"
int main(void) {
    static const char *shared[] = {"/sc/in", "/sc/runner", "/sc/bin/baseline", "/sc/root", "/dev/shm", "/dev/pts"};
    struct stat st;
    int seen = 0;
    for (unsigned k = 0; k < sizeof shared / sizeof shared[0]; k++) seen |= stat(shared[k], &st) == 0;
    if (!seen) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
