#include <stdio.h>

#define MAXR 512
typedef long long ll;

int R, C;
int g[MAXR][MAXR];
ll pre[MAXR + 1][MAXR + 1];

ll rect(int r1, int c1, int r2, int c2) {   /* inclusive-exclusive */
    return pre[r2][c2] - pre[r1][c2] - pre[r2][c1] + pre[r1][c1];
}

int main(void) {
    int q;
    scanf("%d %d %d", &R, &C, &q);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) scanf("%d", &g[i][j]);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            pre[i + 1][j + 1] = pre[i][j + 1] + pre[i + 1][j] - pre[i][j] + g[i][j];
    while (q--) {
        int h, w;
        ll t;
        scanf("%d %d %lld", &h, &w, &t);
        ll cnt = 0, best = -1;
        int br = -1, bc = -1;
        for (int i = 0; i + h <= R; i++)
            for (int j = 0; j + w <= C; j++) {
                ll s = rect(i, j, i + h, j + w);
                if (s <= t) cnt++;
                if (s > best) { best = s; br = i; bc = j; }
            }
        printf("%lld %lld %d %d\n", cnt, best, br + 1, bc + 1);
    }
    return 0;
}
