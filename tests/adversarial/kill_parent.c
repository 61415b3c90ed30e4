/* Tries to kill its supervisor (the parent); answers only if that worked. */
#include <signal.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    pid_t parent = getppid();
    int a = kill(parent, SIGTERM), b = kill(parent, SIGKILL);
    if (a != 0 && b != 0) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
