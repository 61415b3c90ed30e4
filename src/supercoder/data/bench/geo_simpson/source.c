#include <stdio.h>
#include <math.h>

double A, B, C, D, E;

double f(double x) {
    return A * sin(B * x) + C * exp(-D * x * x) + E * x * x / (1.0 + x * x);
}

double simpson(double lo, double hi, int n) {
    double h = (hi - lo) / n;
    double s = f(lo) + f(hi);
    for (int i = 1; i < n; i++) {
        double x = lo + i * h;
        if (i % 2 == 1)
            s += 4.0 * f(x);
        else
            s += 2.0 * f(x);
    }
    return s * h / 3.0;
}

int main(void) {
    int q;
    scanf("%d", &q);
    double total = 0.0;
    for (int k = 0; k < q; k++) {
        double lo, hi;
        int n;
        scanf("%lf %lf %lf %lf %lf %lf %lf %d", &A, &B, &C, &D, &E, &lo, &hi, &n);
        if (n % 2) n++;
        double v = simpson(lo, hi, n);
        total += v;
        printf("%.6f\n", v);
    }
    printf("total %.4f\n", total);
    return 0;
}
