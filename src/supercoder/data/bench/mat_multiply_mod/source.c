#include <stdio.h>

#define MAXN 300
#define MOD 1000000007ULL

typedef unsigned long long ull;

ull A[MAXN][MAXN], B[MAXN][MAXN], C[MAXN][MAXN];

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) scanf("%llu", &A[i][j]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) scanf("%llu", &B[i][j]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            ull s = 0;
            for (int k = 0; k < n; k++) s = (s + A[i][k] * B[k][j]) % MOD;
            C[i][j] = s;
        }
    ull tr = 0, h = 0;
    for (int i = 0; i < n; i++) {
        tr = (tr + C[i][i]) % MOD;
        for (int j = 0; j < n; j++) h = h * 31 + C[i][j];
    }
    printf("%llu\n%llu\n", tr, h);
    for (int j = 0; j < n && j < 5; j++) printf("%llu%c", C[n - 1][j], (j == n - 1 || j == 4) ? '\n' : ' ');
    return 0;
}
