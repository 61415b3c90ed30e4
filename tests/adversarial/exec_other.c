/* Execs another program (MODE 0: the baseline, 1: execveat of the baseline, 2: a shell
 * running the baseline, 3: itself again) instead of computing; the baseline prints the
 * right answer, so the run passes only if the exec worked. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"
#ifndef MODE
#define MODE 0
#endif
int main(int argc, char **argv) {
    char *env[] = {NULL};
    char *base[] = {"/sc/bin/baseline", NULL};
    char *sh[] = {"/bin/sh", "-c", "exec /sc/bin/baseline", NULL};
    char *again[] = {argv[0], "again", NULL};
    if (argc > 1) {  /* the re-exec'd copy answers */
        printf("%lld\n", honest_sum());
        return 0;
    }
    if (MODE == 0) execve(base[0], base, env);
    if (MODE == 1) syscall(SYS_execveat, AT_FDCWD, base[0], base, env, 0);
    if (MODE == 2) execve(sh[0], sh, env);
    if (MODE == 3) execve("/proc/self/exe", again, env);
    return 1;
}
