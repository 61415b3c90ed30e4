#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 300005
#define BASE 1000003ULL

typedef unsigned long long u64;

char s[MAXN];
u64 pre[MAXN], pw[MAXN], h[MAXN];

int cmp_u64(const void *a, const void *b) {
    u64 x = *(const u64 *)a, y = *(const u64 *)b;
    return (x > y) - (x < y);
}

u64 window(int i, int k) { return pre[i + k] - pre[i] * pw[k]; }

int main(void) {
    int q;
    scanf("%s %d", s, &q);
    int n = strlen(s);
    pw[0] = 1;
    pre[0] = 0;
    for (int i = 0; i < n; i++) {
        pw[i + 1] = pw[i] * BASE;
        pre[i + 1] = pre[i] * BASE + (unsigned char)s[i];
    }
    while (q--) {
        int k;
        scanf("%d", &k);
        if (k <= 0 || k > n) {
            printf("0\n");
            continue;
        }
        int cnt = n - k + 1;
        for (int i = 0; i < cnt; i++) h[i] = window(i, k);
        qsort(h, cnt, sizeof(u64), cmp_u64);
        int distinct = 1, run = 1, maxrun = 1;
        for (int i = 1; i < cnt; i++) {
            if (h[i] != h[i - 1]) {
                distinct++;
                run = 1;
            } else if (++run > maxrun) {
                maxrun = run;
            }
        }
        printf("%d %d\n", distinct, maxrun);
    }
    return 0;
}
