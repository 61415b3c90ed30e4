/* The parent exits at once; a detached child prints the answer 300 ms later. */
#include <stdlib.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    long long s = honest_sum();
    pid_t p = fork();
    if (p < 0) return 1;
    if (p == 0) {
        setsid();
        usleep(300000);
        printf("%lld\n", s);
        fflush(stdout);
        _exit(0);
    }
    return 0;
}
