#include <stdio.h>
#include <string.h>

#define MAXN 100005

char s[MAXN];
int z[MAXN];

int main(void) {
    int t;
    scanf("%d", &t);
    for (int tc = 1; tc <= t; tc++) {
        scanf("%s", s);
        int n = strlen(s);
        long long zsum = 0;
        int periods = 0, border = 0;
        z[0] = n;
        for (int i = 1; i < n; i++) {
            int k = 0;
            while (i + k < n && s[k] == s[i + k]) k++;
            z[i] = k;
            zsum += k;
            if (i + k == n) {
                periods++;
                if (k > border) border = k;
            }
        }
        int smallest = n;
        for (int p = 1; p < n; p++)
            if (z[p] == n - p) {
                smallest = p;
                break;
            }
        printf("Case #%d: %lld %d %d %d\n", tc, zsum, periods, border, smallest);
    }
    return 0;
}
