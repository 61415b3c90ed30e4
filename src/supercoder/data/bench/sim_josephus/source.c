#include <stdio.h>

#define MAXN 20000

char alive[MAXN];

int main() {
    int q;
    scanf("%d", &q);
    while (q--) {
        int n, k;
        scanf("%d %d", &n, &k);
        for (int i = 0; i < n; i++) alive[i] = 1;
        int pos = n - 1, left = n;
        unsigned long long h = 0;
        while (left > 1) {
            int cnt = 0;
            while (cnt < k) {
                pos = (pos + 1) % n;
                if (alive[pos]) cnt++;
            }
            alive[pos] = 0;
            left--;
            h = h * 1000003ULL + (unsigned long long)(pos + 1);
        }
        int surv = 0;
        for (int i = 0; i < n; i++)
            if (alive[i]) surv = i + 1;
        printf("%d %llu\n", surv, h);
    }
    return 0;
}
