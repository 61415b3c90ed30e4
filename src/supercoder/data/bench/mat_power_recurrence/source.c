#include <stdio.h>
#include <string.h>

#define K 16
#define MOD 1000000007LL
typedef long long ll;

int k;
ll coef[K], init[K];

void mul(ll a[K][K], ll b[K][K], ll out[K][K]) {
    ll t[K][K];
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            ll s = 0;
            for (int l = 0; l < k; l++) s = (s + a[i][l] * b[l][j]) % MOD;
            t[i][j] = s;
        }
    memcpy(out, t, sizeof(t));
}

/* a_n for n >= 0 where a_n = sum coef[i] * a_{n-1-i} */
ll term(ll n) {
    if (n < k) return init[n];
    ll base[K][K], res[K][K];
    memset(base, 0, sizeof(base));
    memset(res, 0, sizeof(res));
    for (int j = 0; j < k; j++) base[0][j] = coef[j];
    for (int i = 1; i < k; i++) base[i][i - 1] = 1;
    for (int i = 0; i < k; i++) res[i][i] = 1;
    ll e = n - (k - 1);
    while (e > 0) {
        if (e & 1) mul(res, base, res);
        mul(base, base, base);
        e >>= 1;
    }
    ll v = 0;
    for (int j = 0; j < k; j++) v = (v + res[0][j] * init[k - 1 - j]) % MOD;
    return v;
}

int main() {
    int q;
    scanf("%d %d", &k, &q);
    for (int i = 0; i < k; i++) scanf("%lld", &coef[i]);
    for (int i = 0; i < k; i++) scanf("%lld", &init[i]);
    ll acc = 0;
    while (q--) {
        ll n;
        scanf("%lld", &n);
        ll v = term(n);
        acc ^= v;
        printf("%lld\n", v);
    }
    printf("xor %lld\n", acc);
    return 0;
}
