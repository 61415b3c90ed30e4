#include <stdio.h>

#define MAXV 5005

typedef long long ll;

ll px[MAXV], py[MAXV];
int nv;

/* 2 = on boundary, 1 = inside, 0 = outside */
int locate(ll x, ll y) {
    int inside = 0;
    for (int i = 0, j = nv - 1; i < nv; j = i++) {
        ll x1 = px[j], y1 = py[j], x2 = px[i], y2 = py[i];
        ll cr = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
        if (cr == 0 && (x1 < x2 ? (x >= x1 && x <= x2) : (x >= x2 && x <= x1)) &&
            (y1 < y2 ? (y >= y1 && y <= y2) : (y >= y2 && y <= y1)))
            return 2;
        if ((y1 > y) != (y2 > y)) {
            /* x < x1 + (y - y1) * (x2 - x1) / (y2 - y1), compared without division */
            ll lhs = (x - x1) * (y2 - y1);
            ll rhs = (y - y1) * (x2 - x1);
            if (y2 > y1 ? lhs < rhs : lhs > rhs) inside ^= 1;
        }
    }
    return inside;
}

int main() {
    int q;
    scanf("%d", &nv);
    for (int i = 0; i < nv; i++) scanf("%lld %lld", &px[i], &py[i]);
    ll area2 = 0;
    for (int i = 0; i < nv; i++) {
        int j = (i + 1) % nv;
        area2 += px[i] * py[j] - px[j] * py[i];
    }
    if (area2 < 0) area2 = -area2;
    scanf("%d", &q);
    int cnt[3] = {0, 0, 0};
    unsigned long long sig = 0;
    for (int k = 0; k < q; k++) {
        ll x, y;
        scanf("%lld %lld", &x, &y);
        int r = locate(x, y);
        cnt[r]++;
        sig = sig * 3 + (unsigned long long)r;
    }
    printf("%lld.%d\n%d %d %d\n%llu\n", area2 / 2, (int)(area2 % 2) * 5, cnt[1], cnt[2], cnt[0], sig);
    return 0;
}
