#include <stdio.h>
#include <string.h>

#define MAXR 260

int R, C, T;
char g[MAXR][MAXR], nx[MAXR][MAXR];
char line[MAXR + 8];

int main() {
    scanf("%d %d %d", &R, &C, &T);
    for (int i = 0; i < R; i++) {
        scanf("%s", line);
        for (int j = 0; j < C; j++) g[i][j] = (line[j] == '#');
    }
    int maxpop = 0, maxat = 0;
    for (int t = 0; t < T; t++) {
        int pop = 0;
        for (int i = 0; i < R; i++) {
            for (int j = 0; j < C; j++) {
                int cnt = 0;
                for (int di = -1; di <= 1; di++)
                    for (int dj = -1; dj <= 1; dj++) {
                        if (di == 0 && dj == 0) continue;
                        cnt += g[(i + di + R) % R][(j + dj + C) % C];
                    }
                if (g[i][j])
                    nx[i][j] = (cnt == 2 || cnt == 3);
                else
                    nx[i][j] = (cnt == 3);
                pop += nx[i][j];
            }
        }
        memcpy(g, nx, sizeof(g));
        if (pop > maxpop) { maxpop = pop; maxat = t + 1; }
    }
    unsigned long long h = 0;
    int alive = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            h = h * 131 + g[i][j] + 1;
            alive += g[i][j];
        }
    printf("%d\n%d %d\n%llu\n", alive, maxpop, maxat, h);
    return 0;
}
