#include <stdio.h>
#include <string.h>

#define N 5005

char a[N], b[N];
int prev_row[N], cur_row[N];

int min3(int x, int y, int z) {
    int m = x;
    if (y < m) m = y;
    if (z < m) m = z;
    return m;
}

int edit_distance(const char *x, int n, const char *y, int m) {
    int i, j;
    for (j = 0; j <= m; j++) prev_row[j] = j;
    for (i = 1; i <= n; i++) {
        cur_row[0] = i;
        for (j = 1; j <= m; j++) {
            int sub = prev_row[j - 1] + (x[i - 1] != y[j - 1]);
            cur_row[j] = min3(prev_row[j] + 1, cur_row[j - 1] + 1, sub);
        }
        memcpy(prev_row, cur_row, sizeof(int) * (m + 1));
    }
    return prev_row[m];
}

int main() {
    int q;
    scanf("%d", &q);
    long long total = 0;
    while (q--) {
        scanf("%s %s", a, b);
        int d = edit_distance(a, strlen(a), b, strlen(b));
        total += d;
        printf("%d\n", d);
    }
    printf("total %lld\n", total);
    return 0;
}
