#include <stdio.h>
#include <stdlib.h>

#define LIM 20000001

char composite[LIM];
int pcount[LIM];
int L[100005], R[100005];

int main(void) {
    int q, hi = 1;
    scanf("%d", &q);
    for (int i = 0; i < q; i++) {
        scanf("%d %d", &L[i], &R[i]);
        if (R[i] > hi) hi = R[i];
    }
    composite[0] = composite[1] = 1;
    for (int i = 2; i <= hi; i++) {
        if (composite[i]) continue;
        for (int j = 2 * i; j <= hi; j += i) composite[j] = 1;
    }
    pcount[0] = 0;
    for (int i = 1; i <= hi; i++) pcount[i] = pcount[i - 1] + !composite[i];
    long long total = 0;
    for (int i = 0; i < q; i++) {
        int c = L[i] > 0 ? pcount[R[i]] - pcount[L[i] - 1] : pcount[R[i]];
        total += c;
        printf("%d\n", c);
    }
    printf("%lld\n", total);
    return 0;
}
