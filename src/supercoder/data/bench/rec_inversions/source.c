#include <stdio.h>
#include <stdlib.h>

typedef long long ll;

int *a, *tmp;

ll sort_count(int lo, int hi) {      /* [lo, hi) */
    if (hi - lo < 2) return 0;
    int mid = (lo + hi) / 2;
    ll inv = sort_count(lo, mid) + sort_count(mid, hi);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (a[j] < a[i]) {
            inv += mid - i;
            tmp[k++] = a[j++];
        } else {
            tmp[k++] = a[i++];
        }
    }
    while (i < mid) tmp[k++] = a[i++];
    while (j < hi) tmp[k++] = a[j++];
    for (k = lo; k < hi; k++) a[k] = tmp[k];
    return inv;
}

int main() {
    int n, m;
    unsigned int x;
    scanf("%d %d %u", &n, &m, &x);
    a = malloc(sizeof(int) * (n + 1));
    tmp = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        a[i] = (int)((x >> 7) % (unsigned)m);
    }
    ll inv = sort_count(0, n);
    unsigned long long h = 0;
    for (int i = 0; i < n; i += 97) h = h * 1000003ULL + (unsigned)a[i];
    printf("%lld\n%llu\n", inv, h);
    free(a);
    free(tmp);
    return 0;
}
