/* Tries to create 64 processes (bounded); prints the answer only if it could. */
#include <stdlib.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    int made = 0;
    for (int i = 0; i < 64; i++) {
        pid_t p = fork();
        if (p == 0) { usleep(50000); _exit(0); }
        if (p > 0) made++;
    }
    if (!made) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
