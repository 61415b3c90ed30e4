#include <stdio.h>

#define MAXN 5000

long long a[MAXN];

long long gcd(long long x, long long y) { return y == 0 ? x : gcd(y, x % y); }

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    long long sum = 0, coprime = 0, best = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            long long g = gcd(a[i], a[j]);
            sum += g;
            if (g == 1) coprime++;
            if (g > best) best = g;
        }
    }
    printf("%lld %lld %lld\n", sum, coprime, best);
    return 0;
}
