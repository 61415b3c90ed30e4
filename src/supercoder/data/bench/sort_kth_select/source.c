#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 100005

int a[MAXN], work[MAXN];

/* k-th smallest (0-based) of x[0..len-1], Hoare-style partitioning, destroys x */
int select_kth(int *x, int len, int k) {
    int lo = 0, hi = len - 1;
    while (lo < hi) {
        int pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) {
                int t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return x[k];
    }
    return x[k];
}

int main(void) {
    int n, q;
    scanf("%d %d", &n, &q);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    long long acc = 0;
    for (int t = 0; t < q; t++) {
        int l, r, k;
        scanf("%d %d %d", &l, &r, &k);
        int len = r - l + 1;
        memcpy(work, a + l, sizeof(int) * len);
        int v = select_kth(work, len, k - 1);
        acc += v;
        if (t < 20) printf("%d\n", v);
    }
    printf("%lld\n", acc);
    return 0;
}
