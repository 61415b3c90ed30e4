/* Shared by the adversarial fixtures: the honest answer to the "sum" problem. */
#include <stdio.h>
static long long honest_sum(void) {
    long long n = 0, x, s = 0;
    if (scanf("%lld", &n) != 1) return 0;
    for (long long i = 0; i < n && scanf("%lld", &x) == 1; i++) s += x;
    return s;
}
