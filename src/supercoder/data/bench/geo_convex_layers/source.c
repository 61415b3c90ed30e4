#include <stdio.h>
#include <stdlib.h>

#define MAXN 100005

typedef long long ll;
typedef struct { ll x, y; int id; } Pt;

Pt p[MAXN], rest[MAXN];
int hull[2 * MAXN];
char gone[MAXN];

ll cross(Pt o, Pt a, Pt b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

int cmp(const void *a, const void *b) {
    const Pt *u = (const Pt *)a, *v = (const Pt *)b;
    if (u->x != v->x) return u->x < v->x ? -1 : 1;
    if (u->y != v->y) return u->y < v->y ? -1 : 1;
    return u->id - v->id;
}

/* Andrew's monotone chain over the sorted points q[0..m-1]; returns hull size, indices into q */
int build_hull(Pt *q, int m) {
    int k = 0;
    for (int i = 0; i < m; i++) {
        while (k >= 2 && cross(q[hull[k - 2]], q[hull[k - 1]], q[i]) <= 0) k--;
        hull[k++] = i;
    }
    for (int i = m - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross(q[hull[k - 2]], q[hull[k - 1]], q[i]) <= 0) k--;
        hull[k++] = i;
    }
    return k - 1;
}

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        scanf("%lld %lld", &p[i].x, &p[i].y);
        p[i].id = i;
    }
    qsort(p, n, sizeof(Pt), cmp);
    int left = n, layers = 0;
    ll outer2 = 0, sizes = 0;
    while (left > 0) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (!gone[p[i].id]) rest[m++] = p[i];
        layers++;
        if (m <= 2) {
            sizes += m;
            break;
        }
        int h = build_hull(rest, m);
        if (layers == 1) {
            for (int i = 0; i < h; i++) {
                Pt a = rest[hull[i]], b = rest[hull[(i + 1) % h]];
                outer2 += a.x * b.y - a.y * b.x;
            }
        }
        int removed = 0;
        for (int i = 0; i < h; i++)
            if (!gone[rest[hull[i]].id]) { gone[rest[hull[i]].id] = 1; removed++; }
        sizes += removed;
        left -= removed;
    }
    printf("%d\n%lld\n%lld\n", layers, outer2 < 0 ? -outer2 : outer2, sizes);
    return 0;
}
