/* Answers honestly, then sleeps NAP_MS (no CPU time, so the speedup is unchanged and no
 * run times out): each run holds the machine's timing slot for nothing. Bounded: one
 * nap per run (the checks stop it long before a check's rounds are done). */
#include <time.h>
#include "common.h"
#ifndef NAP_MS
#define NAP_MS 200
#endif
int main(void) {
    printf("%lld\n", honest_sum());
    fflush(stdout);
    struct timespec t = {NAP_MS / 1000, (NAP_MS % 1000) * 1000000L};
    nanosleep(&t, NULL);
    return 0;
}
