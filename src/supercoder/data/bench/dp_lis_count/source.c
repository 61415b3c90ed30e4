#include <stdio.h>

#define MOD 1000000007
#define MX 20000

int n, a[MX], len[MX];
long long cnt[MX];

int main(void) {
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    int best = 0;
    for (int i = 0; i < n; i++) {
        len[i] = 1;
        cnt[i] = 1;
        for (int j = 0; j < i; j++) {
            if (a[j] < a[i]) {
                if (len[j] + 1 > len[i]) {
                    len[i] = len[j] + 1;
                    cnt[i] = cnt[j];
                } else if (len[j] + 1 == len[i]) {
                    cnt[i] = (cnt[i] + cnt[j]) % MOD;
                }
            }
        }
        if (len[i] > best) best = len[i];
    }
    long long ways = 0;
    for (int i = 0; i < n; i++)
        if (len[i] == best) ways = (ways + cnt[i]) % MOD;
    printf("%d %lld\n", best, ways);
    return 0;
}
