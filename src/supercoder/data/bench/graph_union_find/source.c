#include <stdio.h>

#define MAXN 1000005

int parent[MAXN], sz[MAXN];
unsigned int state;

unsigned int next_rand(void) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

int find(int x) {
    if (parent[x] == x) return x;
    return parent[x] = find(parent[x]);
}

int unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return 0;
    if (sz[a] < sz[b]) { int t = a; a = b; b = t; }
    parent[b] = a;
    sz[a] += sz[b];
    return 1;
}

int main(void) {
    int n, q;
    unsigned int seed;
    int join_pct;
    scanf("%d %d %u %d", &n, &q, &seed, &join_pct);
    state = seed ? seed : 2463534242u;
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        sz[i] = 1;
    }
    int comps = n, same = 0, largest = 1;
    unsigned long long hash = 0;
    for (int i = 0; i < q; i++) {
        int a = next_rand() % n, b = next_rand() % n;
        if ((int)(next_rand() % 100) < join_pct) {
            if (unite(a, b)) {
                comps--;
                int r = find(a);
                if (sz[r] > largest) largest = sz[r];
            }
        } else {
            int ans = find(a) == find(b);
            same += ans;
            hash = hash * 1000003ULL + (unsigned long long)(ans + 1) * (i + 1);
        }
    }
    printf("%d %d %d %llu\n", comps, largest, same, hash);
    return 0;
}
