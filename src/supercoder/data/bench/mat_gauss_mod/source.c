#include <stdio.h>

#define P 998244353LL
#define MAXN 512

typedef long long ll;
ll m[MAXN][MAXN];

ll power(ll b, ll e) {
    ll r = 1;
    b %= P;
    while (e > 0) {
        if (e & 1) r = r * b % P;
        b = b * b % P;
        e >>= 1;
    }
    return r;
}

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            scanf("%lld", &m[i][j]);
            m[i][j] %= P;
            if (m[i][j] < 0) m[i][j] += P;
        }
    ll det = 1;
    int rank = 0;
    for (int col = 0; col < n && rank < n; col++) {
        int piv = -1;
        for (int r = rank; r < n; r++)
            if (m[r][col] != 0) { piv = r; break; }
        if (piv < 0) { det = 0; continue; }
        if (piv != rank) {
            for (int j = 0; j < n; j++) { ll t = m[piv][j]; m[piv][j] = m[rank][j]; m[rank][j] = t; }
            det = (P - det) % P;
        }
        det = det * m[rank][col] % P;
        ll inv = power(m[rank][col], P - 2);
        for (int r = rank + 1; r < n; r++) {
            if (m[r][col] == 0) continue;
            ll f = m[r][col] * inv % P;
            for (int j = col; j < n; j++) {
                m[r][j] = (m[r][j] - f * m[rank][j]) % P;
                if (m[r][j] < 0) m[r][j] += P;
            }
        }
        rank++;
    }
    if (rank < n) det = 0;
    printf("%d\n%lld\n", rank, det);
    return 0;
}
