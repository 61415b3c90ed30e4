#include <stdio.h>

#define N 20000
typedef long long ll;

int n;
ll X[N], Y[N];

int main() {
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%lld %lld", &X[i], &Y[i]);
    ll best = -1;
    int bi = -1, bj = -1, ties = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            ll dx = X[i] - X[j], dy = Y[i] - Y[j];
            ll d = dx * dx + dy * dy;
            if (best < 0 || d < best) {
                best = d;
                bi = i;
                bj = j;
                ties = 1;
            } else if (d == best) {
                ties++;
            }
        }
    if (n < 2) {
        printf("-1\n");
        return 0;
    }
    printf("%lld\n%d %d\n%d\n", best, bi + 1, bj + 1, ties);
    return 0;
}
