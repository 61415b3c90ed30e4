#include <stdio.h>
#include <string.h>

#define MAXH 512
#define MAXW 512

char grid[MAXH][MAXW + 2];
int dist[MAXH][MAXW];
int qr[MAXH * MAXW], qc[MAXH * MAXW];
int H, W;
const int dr[4] = {-1, 1, 0, 0};
const int dc[4] = {0, 0, -1, 1};

int bfs(int sr, int sc, int tr, int tc) {
    if (grid[sr][sc] == '#' || grid[tr][tc] == '#') return -1;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) dist[i][j] = -1;
    int head = 0, tail = 0;
    dist[sr][sc] = 0;
    qr[tail] = sr; qc[tail] = sc; tail++;
    while (head < tail) {
        int r = qr[head], c = qc[head];
        head++;
        if (r == tr && c == tc) return dist[r][c];
        for (int d = 0; d < 4; d++) {
            int nr = r + dr[d], nc = c + dc[d];
            if (nr < 0 || nr >= H || nc < 0 || nc >= W) continue;
            if (grid[nr][nc] == '#' || dist[nr][nc] != -1) continue;
            dist[nr][nc] = dist[r][c] + 1;
            qr[tail] = nr; qc[tail] = nc; tail++;
        }
    }
    return -1;
}

int main(void) {
    int q;
    scanf("%d %d %d", &H, &W, &q);
    for (int i = 0; i < H; i++) scanf("%s", grid[i]);
    long long sum = 0;
    int unreachable = 0;
    while (q--) {
        int a, b, c, d;
        scanf("%d %d %d %d", &a, &b, &c, &d);
        int res = bfs(a, b, c, d);
        printf("%d\n", res);
        if (res < 0) unreachable++;
        else sum += res;
    }
    printf("sum=%lld unreachable=%d\n", sum, unreachable);
    return 0;
}
