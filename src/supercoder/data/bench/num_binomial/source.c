#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007LL
#define MAXF 2000001

long long fact[MAXF];

long long power(long long b, long long e) {
    long long r = 1;
    b %= MOD;
    while (e > 0) {
        if (e & 1) r = r * b % MOD;
        b = b * b % MOD;
        e >>= 1;
    }
    return r;
}

long long inverse(long long x) { return power(x, MOD - 2); }

long long C(int n, int k) {
    if (k < 0 || k > n) return 0;
    return fact[n] * inverse(fact[k]) % MOD * inverse(fact[n - k]) % MOD;
}

int main(void) {
    int nmax, q;
    unsigned long long seed;
    scanf("%d %d %llu", &nmax, &q, &seed);
    fact[0] = 1;
    for (int i = 1; i <= nmax; i++) fact[i] = fact[i - 1] * i % MOD;
    long long sum = 0, x = 0;
    int zeros = 0;
    for (int i = 0; i < q; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int n = (int)((seed >> 33) % (unsigned long long)(nmax + 1));
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((seed >> 33) % (unsigned long long)(n + 2)) - 1;
        long long c = C(n, k);
        if (c == 0) zeros++;
        sum = (sum + c) % MOD;
        x ^= c * (i + 1);
    }
    printf("%lld %lld %d\n", sum, x, zeros);
    return 0;
}
