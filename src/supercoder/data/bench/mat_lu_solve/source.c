#include <stdio.h>
#include <math.h>

#define MAXN 800

double a[MAXN][MAXN], b[MAXN], x[MAXN];
unsigned int seed;

double rnd(void) {
    seed = seed * 1103515245u + 12345u;
    return ((seed >> 8) & 0xFFFF) / 32768.0 - 1.0;
}

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int n;
        scanf("%d %u", &n, &seed);
        for (int i = 0; i < n; i++) {
            double row = 0;
            for (int j = 0; j < n; j++) {
                a[i][j] = rnd();
                row += fabs(a[i][j]);
            }
            a[i][(i * 7) % n] += row + 1.0;  /* dominant entry, not always on the diagonal */
            b[i] = rnd() * 100.0;
        }
        /* Gaussian elimination with partial pivoting */
        for (int c = 0; c < n; c++) {
            int p = c;
            for (int r = c + 1; r < n; r++)
                if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
            if (p != c) {
                for (int j = 0; j < n; j++) { double tmp = a[c][j]; a[c][j] = a[p][j]; a[p][j] = tmp; }
                double tmp = b[c]; b[c] = b[p]; b[p] = tmp;
            }
            for (int r = c + 1; r < n; r++) {
                double f = a[r][c] / a[c][c];
                for (int j = c; j < n; j++) a[r][j] -= f * a[c][j];
                b[r] -= f * b[c];
            }
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = b[i];
            for (int j = i + 1; j < n; j++) s -= a[i][j] * x[j];
            x[i] = s / a[i][i];
        }
        double sum = 0, mx = 0;
        for (int i = 0; i < n; i++) {
            sum += x[i];
            if (fabs(x[i]) > mx) mx = fabs(x[i]);
        }
        printf("%.5f %.5f %.5f\n", sum, mx, x[n / 2]);
    }
    return 0;
}
