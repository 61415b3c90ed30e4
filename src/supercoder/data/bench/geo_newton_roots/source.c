#include <stdio.h>
#include <math.h>

static unsigned long long s;

static double uniform(double lo, double hi) {
    s ^= s << 7;
    s ^= s >> 9;
    return lo + (hi - lo) * (double)(s >> 11) / 9007199254740992.0;
}

/* solve x^k + a*x = b (a > 0, b >= 0) by Newton's method */
static double solve(int k, double a, double b, int *iters) {
    double x = b > 1.0 ? b : 1.0;
    for (int it = 0; it < 200; it++) {
        double p = 1.0;
        for (int e = 1; e < k; e++) p *= x;      /* x^(k-1) */
        double fx = p * x + a * x - b;
        double dfx = k * p + a;
        double nx = x - fx / dfx;
        (*iters)++;
        if (fabs(nx - x) <= 1e-13 * (1.0 + fabs(x))) {
            x = nx;
            break;
        }
        x = nx;
    }
    return x;
}

int main(void) {
    int q;
    scanf("%d %llu", &q, &s);
    if (s == 0) s = 88172645463325252ULL;
    double sum = 0.0, mx = 0.0, last = 0.0;
    int iters = 0;
    for (int i = 0; i < q; i++) {
        int k = 2 + (int)uniform(0.0, 7.0);
        double a = uniform(0.001, 50.0);
        double b = uniform(0.0, 1e6);
        last = solve(k, a, b, &iters);
        sum += last;
        if (last > mx) mx = last;
    }
    printf("%.3f\n%.6f\n%.6f\n", sum, mx, last);
    return 0;
}
