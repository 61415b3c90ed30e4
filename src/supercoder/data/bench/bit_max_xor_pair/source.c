#include <stdio.h>
#include <stdlib.h>

int n;
int *v;

int main() {
    scanf("%d", &n);
    v = (int *)malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) scanf("%d", &v[i]);
    int mx = 0, mn = 2147483647, bi = 0, bj = 0;
    long long eq_top = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            int x = v[i] ^ v[j];
            if (x > mx) { mx = x; bi = i; bj = j; }
            if (x < mn) mn = x;
            if ((x >> 29) == 0) eq_top++;
        }
    }
    if (n < 2) mn = 0;
    printf("%d %d %d\n%d\n%lld\n", mx, bi + 1, bj + 1, mn, eq_top);
    free(v);
    return 0;
}
