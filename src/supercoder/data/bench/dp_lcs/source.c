#include <stdio.h>
#include <string.h>

#define MAXN 20005
#define max(a, b) ((a) > (b) ? (a) : (b))

char s[MAXN], t[MAXN];
int dp[2][MAXN];

int main(void) {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    scanf("%s %s", s + 1, t + 1);
    for (int i = 1; i <= n; i++) {
        int cur = i & 1, prv = cur ^ 1;
        dp[cur][0] = 0;
        for (int j = 1; j <= m; j++) {
            if (s[i] == t[j])
                dp[cur][j] = dp[prv][j - 1] + 1;
            else
                dp[cur][j] = max(dp[prv][j], dp[cur][j - 1]);
        }
    }
    printf("%d\n", dp[n & 1][m]);
    return 0;
}
