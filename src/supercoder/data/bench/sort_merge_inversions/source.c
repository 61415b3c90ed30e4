#include <stdio.h>
#include <stdlib.h>

typedef long long ll;
typedef unsigned long long ull;

static int *a, *tmp;

static ll merge_count(int lo, int hi) {
    if (hi - lo < 2) return 0;
    int mid = (lo + hi) / 2;
    ll inv = merge_count(lo, mid) + merge_count(mid, hi);
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

int main(void) {
    int n, mode;
    ull x;
    unsigned range;
    if (scanf("%d %llu %u %d", &n, &x, &range, &mode) != 4) return 1;
    a = malloc(sizeof(int) * (n + 1));
    tmp = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned r = (unsigned)(x >> 33) % range;
        if (mode == 1) /* mostly sorted: small noise around i */
            a[i] = i + (int)(r % 64);
        else if (mode == 2) /* mostly reversed */
            a[i] = n - i + (int)(r % 64);
        else
            a[i] = (int)r;
    }
    ll inv = merge_count(0, n);
    ull check = 0;
    for (int i = 0; i < n; i += 1 + n / 1000) check = check * 31 + (ull)a[i];
    printf("%lld %llu\n", inv, check);
    free(a);
    free(tmp);
    return 0;
}
