#include <stdio.h>

#define MAXN 20000

int n;
long long K, a[MAXN];

void insertion_sort(long long *x, int len) {
    for (int i = 1; i < len; i++) {
        long long key = x[i];
        int j = i - 1;
        while (j >= 0 && x[j] > key) {
            x[j + 1] = x[j];
            j--;
        }
        x[j + 1] = key;
    }
}

int main(void) {
    scanf("%d %lld", &n, &K);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    insertion_sort(a, n);

    /* pairs i < j with a[i] + a[j] <= K */
    long long pairs = 0;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        if (a[lo] + a[hi] <= K) {
            pairs += hi - lo;
            lo++;
        } else {
            hi--;
        }
    }

    /* triples i < j < k with a[i] + a[j] + a[k] <= K, and how many hit K exactly */
    long long triples = 0, exact = 0;
    for (int i = 0; i + 2 < n; i++) {
        int l = i + 1, r = n - 1;
        while (l < r) {
            long long s = a[i] + a[l] + a[r];
            if (s <= K) {
                triples += r - l;
                l++;
            } else {
                r--;
            }
        }
        l = i + 1;
        r = n - 1;
        while (l < r) {
            long long s = a[i] + a[l] + a[r];
            if (s < K) l++;
            else if (s > K) r--;
            else {
                if (a[l] == a[r]) {
                    long long m = r - l + 1;
                    exact += m * (m - 1) / 2;
                    break;
                }
                int cl = 1, cr = 1;
                while (l + cl < r && a[l + cl] == a[l]) cl++;
                while (r - cr > l && a[r - cr] == a[r]) cr++;
                exact += (long long)cl * cr;
                l += cl;
                r -= cr;
            }
        }
    }
    printf("%lld %lld %lld\n", pairs, triples, exact);
    return 0;
}
