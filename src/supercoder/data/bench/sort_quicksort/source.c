#include <stdio.h>

#define MAXN 400005
#define SWAP(x, y) do { int t_ = (x); (x) = (y); (y) = t_; } while (0)

int a[MAXN];

static int rd(void) {
    int c = getchar_unlocked(), s = 1;
    long long v = 0;
    while (c != '-' && (c < '0' || c > '9')) c = getchar_unlocked();
    if (c == '-') { s = -1; c = getchar_unlocked(); }
    for (; c >= '0' && c <= '9'; c = getchar_unlocked()) v = v * 10 + c - '0';
    return (int)(s * v);
}

/* Lomuto partition around the middle element */
void quicksort(int lo, int hi) {
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        SWAP(a[mid], a[hi]);
        int pivot = a[hi], store = lo;
        for (int i = lo; i < hi; i++)
            if (a[i] < pivot) {
                SWAP(a[i], a[store]);
                store++;
            }
        SWAP(a[store], a[hi]);
        /* recurse into the smaller side, loop on the larger */
        if (store - lo < hi - store) {
            quicksort(lo, store - 1);
            lo = store + 1;
        } else {
            quicksort(store + 1, hi);
            hi = store - 1;
        }
    }
}

int main(void) {
    int n = rd();
    for (int i = 0; i < n; i++) a[i] = rd();
    quicksort(0, n - 1);
    unsigned long long check = 0;
    int distinct = n > 0;
    for (int i = 0; i < n; i++) {
        check = check * 1000003ULL + (unsigned)a[i];
        if (i && a[i] != a[i - 1]) distinct++;
    }
    if (n) printf("%d %d %d %d %llu\n", a[0], a[n / 2], a[n - 1], distinct, check);
    else printf("empty\n");
    return 0;
}
