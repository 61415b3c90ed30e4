#include <stdio.h>

#define MAXG 32

int H, W, L;
char grid[MAXG][MAXG + 2];
int seen[MAXG][MAXG];
long long walks, ends_at_edge;
long long reach[MAXG][MAXG];

void walk(int r, int c, int len) {
    if (len == L) {
        walks++;
        reach[r][c]++;
        if (r == 0 || c == 0 || r == H - 1 || c == W - 1) ends_at_edge++;
        return;
    }
    static const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    for (int d = 0; d < 4; d++) {
        int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nc < 0 || nr >= H || nc >= W) continue;
        if (grid[nr][nc] == '#' || seen[nr][nc]) continue;
        seen[nr][nc] = 1;
        walk(nr, nc, len + 1);
        seen[nr][nc] = 0;
    }
}

int main() {
    int sr = 0, sc = 0;
    scanf("%d %d %d", &H, &W, &L);
    for (int i = 0; i < H; i++) {
        scanf("%s", grid[i]);
        for (int j = 0; j < W; j++)
            if (grid[i][j] == 'S') { sr = i; sc = j; }
    }
    seen[sr][sc] = 1;
    walk(sr, sc, 0);
    int cells = 0;
    long long most = 0;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
            if (reach[i][j]) {
                cells++;
                if (reach[i][j] > most) most = reach[i][j];
            }
    printf("%lld %lld\n%d %lld\n", walks, ends_at_edge, cells, most);
    return 0;
}
