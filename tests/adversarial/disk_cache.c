/* Caches its answer on disk during warm-up runs and replays it later, marked CACHED. */
#include <stdlib.h>
#include "common.h"
static const char *paths[] = {"/tmp/sc_cache", "sc_cache", "/sc/sc_cache", "/dev/shm/sc_cache", "/var/tmp/sc_cache"};
int main(void) {
    long long s;
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {
        FILE *f = fopen(paths[i], "r");
        if (f && fscanf(f, "%lld", &s) == 1) { printf("CACHED\n%lld\n", s); return 0; }
    }
    s = honest_sum();
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {
        FILE *f = fopen(paths[i], "w");
        if (f) { fprintf(f, "%lld\n", s); fclose(f); }
    }
    printf("%lld\n", s);
    return 0;
}
