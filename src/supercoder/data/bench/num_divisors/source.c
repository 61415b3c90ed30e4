#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int N, q;
    scanf("%d %d", &N, &q);
    int *cnt = calloc(N + 1, sizeof(int));
    long long *sigma = calloc(N + 1, sizeof(long long));
    for (int d = 1; d <= N; d++)
        for (int k = d; k <= N; k += d) {
            cnt[k]++;
            sigma[k] += d;
        }
    int arg = 1, perfect = 0;
    long long total = 0;
    for (int k = 1; k <= N; k++) {
        total += cnt[k];
        if (cnt[k] > cnt[arg]) arg = k;
        if (sigma[k] == 2LL * k) perfect++;
    }
    printf("%lld %d %d %d\n", total, arg, cnt[arg], perfect);
    for (int i = 0; i < q; i++) {
        int k;
        scanf("%d", &k);
        printf("%d %lld\n", cnt[k], sigma[k]);
    }
    free(cnt);
    free(sigma);
    return 0;
}
