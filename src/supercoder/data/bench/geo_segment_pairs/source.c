#include <stdio.h>

#define MAXS 6000
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef long long ll;
ll ax[MAXS], ay[MAXS], bx[MAXS], by[MAXS];

int sgn(ll v) { return (v > 0) - (v < 0); }

int orient(ll x1, ll y1, ll x2, ll y2, ll x3, ll y3) {
    return sgn((x2 - x1) * (y3 - y1) - (y2 - y1) * (x3 - x1));
}

int on_seg(ll x1, ll y1, ll x2, ll y2, ll x, ll y) {
    return MIN(x1, x2) <= x && x <= MAX(x1, x2) && MIN(y1, y2) <= y && y <= MAX(y1, y2);
}

/* 0 = disjoint, 1 = touching/overlapping, 2 = proper crossing */
int meet(int i, int j) {
    int o1 = orient(ax[i], ay[i], bx[i], by[i], ax[j], ay[j]);
    int o2 = orient(ax[i], ay[i], bx[i], by[i], bx[j], by[j]);
    int o3 = orient(ax[j], ay[j], bx[j], by[j], ax[i], ay[i]);
    int o4 = orient(ax[j], ay[j], bx[j], by[j], bx[i], by[i]);
    if (o1 * o2 < 0 && o3 * o4 < 0) return 2;
    if (o1 == 0 && on_seg(ax[i], ay[i], bx[i], by[i], ax[j], ay[j])) return 1;
    if (o2 == 0 && on_seg(ax[i], ay[i], bx[i], by[i], bx[j], by[j])) return 1;
    if (o3 == 0 && on_seg(ax[j], ay[j], bx[j], by[j], ax[i], ay[i])) return 1;
    if (o4 == 0 && on_seg(ax[j], ay[j], bx[j], by[j], bx[i], by[i])) return 1;
    return 0;
}

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%lld %lld %lld %lld", &ax[i], &ay[i], &bx[i], &by[i]);
    long long proper = 0, touch = 0;
    int worst = 0, worst_deg = -1;
    for (int i = 0; i < n; i++) {
        int deg = 0;
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            int r = meet(i, j);
            if (r) deg++;
            if (j > i) {
                if (r == 2) proper++;
                else if (r == 1) touch++;
            }
        }
        if (deg > worst_deg) { worst_deg = deg; worst = i; }
    }
    printf("%lld %lld\n%d %d\n", proper, touch, worst + 1, worst_deg);
    return 0;
}
