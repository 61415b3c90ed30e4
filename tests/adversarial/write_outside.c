/* Writes a file at TARGET (a host path set by the test); answers only if it could. */
#include "common.h"
#ifndef TARGET
#define TARGET "/tmp/supercoder-pwned"
#endif
int main(void) {
    FILE *f = fopen(TARGET, "w");
    if (!f || fputs("pwned\n", f) < 0 || fclose(f) != 0) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
