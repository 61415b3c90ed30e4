#include <stdio.h>
#include <stdlib.h>

long long *v;
int n;

void sift_down(long long *h, int i, int size) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, big = i;
        if (l < size && h[l] > h[big]) big = l;
        if (r < size && h[r] > h[big]) big = r;
        if (big == i) return;
        long long t = h[i]; h[i] = h[big]; h[big] = t;
        i = big;
    }
}

void heap_sort(long long *h, int size) {
    for (int i = size / 2 - 1; i >= 0; i--) sift_down(h, i, size);
    for (int end = size - 1; end > 0; end--) {
        long long t = h[0]; h[0] = h[end]; h[end] = t;
        sift_down(h, 0, end);
    }
}

/* first index with v[idx] >= key */
int lower_bound(long long key) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int main() {
    int q;
    unsigned int s;
    long long span;
    scanf("%d", &n);
    v = malloc(sizeof(long long) * (n + 1));
    for (int i = 0; i < n; i++) scanf("%lld", &v[i]);
    scanf("%d %u %lld", &q, &s, &span);
    heap_sort(v, n);
    long long lo_val = n ? v[0] : 0, hi_val = n ? v[n - 1] : 0;
    unsigned long long range = (unsigned long long)(hi_val - lo_val) + 3;
    long long total = 0;
    int empty = 0;
    for (int i = 0; i < q; i++) {
        s = s * 1103515245u + 12345u;
        long long l = lo_val - 1 + (long long)(s % range);
        s = s * 1103515245u + 12345u;
        long long r = l + (long long)(s % (unsigned long long)span);
        int c = lower_bound(r + 1) - lower_bound(l);
        total += c;
        if (c == 0) empty++;
    }
    printf("%lld %d\n", total, empty);
    return 0;
}
