/* Not an attack: what ordinary programs do, which the sandbox's refusals must leave
 * alone. Reads n and n numbers through a MAP_SHARED read-only mapping of its stdin (a
 * regular file) and through stdio, fills a large malloc'd array and sorts part of it with qsort, uses libm,
 * the C locale and sysconf; prints the sum of the input and a checksum of the rest. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

static int cmp(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(void) {
    struct stat st;
    if (!setlocale(LC_ALL, "") && !setlocale(LC_ALL, "C")) return 3;
    if (fstat(0, &st) || st.st_size <= 0) return 4;
    char *in = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, 0, 0);
    if (in == MAP_FAILED) return 5;
    long long mapped = 0; /* the sum, read from the mapping (first line is n) */
    char *p = strchr(in, '\n');
    while (p && p < in + st.st_size) mapped += strtoll(p, &p, 10), p += strspn(p, " \n");
    munmap(in, (size_t)st.st_size);
    size_t n = 16u << 20, k = 1u << 18; /* 64 MiB (malloc's private mmap); sort a part */
    unsigned *a = malloc(n * sizeof *a);
    if (!a) return 6;
    for (size_t i = 0; i < n; i++) a[i] = (unsigned)(i * 2654435761u);
    qsort(a + n - k, k, sizeof *a, cmp);
    for (size_t i = n - k + 1; i < n; i++) if (a[i - 1] > a[i]) return 7;
    double m = sqrt(2.0) * exp(1.0) + log(10.0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
    if (cpus < 1 || page < 4096 || fabs(m - 6.1468161) > 1e-6) return 8;
    free(a);
    long long s = honest_sum();
    if (s != mapped) return 9;
    printf("%lld\n", s);
    return 0;
}
