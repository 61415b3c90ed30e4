#include <stdio.h>

#define MAXW 300005
#define MAXN 1005

typedef long long ll;

static int readint(void) {
    int c = getchar(), x = 0, neg = 0;
    while (c != '-' && (c < '0' || c > '9')) c = getchar();
    if (c == '-') { neg = 1; c = getchar(); }
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = getchar(); }
    return neg ? -x : x;
}

int wt[MAXN], val[MAXN];
ll best[MAXW];

int main(void) {
    int n = readint(), W = readint();
    for (int i = 0; i < n; i++) {
        wt[i] = readint();
        val[i] = readint();
    }
    for (int i = 0; i < n; i++) {
        for (int w = W; w >= wt[i]; w--) {
            ll cand = best[w - wt[i]] + val[i];
            if (cand > best[w]) best[w] = cand;
        }
    }
    /* smallest capacity that already reaches the optimum */
    int cap = W;
    while (cap > 0 && best[cap - 1] == best[W]) cap--;
    printf("%lld %d\n", best[W], cap);
    return 0;
}
