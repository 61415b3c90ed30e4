#include <stdio.h>

typedef long long ll;

ll phi_and_divisors(ll n, ll *divs) {
    ll result = n, d = 1;
    for (ll p = 2; p * p <= n; p++) {
        if (n % p == 0) {
            int e = 0;
            while (n % p == 0) {
                n /= p;
                e++;
            }
            result -= result / p;
            d *= e + 1;
        }
    }
    if (n > 1) {
        result -= result / n;
        d *= 2;
    }
    *divs = d;
    return result;
}

int main(void) {
    int q;
    scanf("%d", &q);
    ll total = 0;
    while (q--) {
        ll x, d;
        scanf("%lld", &x);
        ll ph = phi_and_divisors(x, &d);
        printf("%lld %lld\n", ph, d);
        total += ph % 1000000007;
    }
    printf("%lld\n", total);
    return 0;
}
