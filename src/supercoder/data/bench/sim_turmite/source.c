#include <stdio.h>
#include <string.h>

#define MAXN 512

unsigned char grid[MAXN][MAXN];
char rule[32];
long long color_count[32];

int dx[4] = {-1, 0, 1, 0};
int dy[4] = {0, 1, 0, -1};

int main(void) {
    int n, ants;
    long long steps;
    scanf("%d %lld %s %d", &n, &steps, rule, &ants);
    int m = (int)strlen(rule);
    int x[8], y[8], d[8];
    for (int a = 0; a < ants; a++) scanf("%d %d %d", &x[a], &y[a], &d[a]);
    for (long long s = 0; s < steps; s++) {
        for (int a = 0; a < ants; a++) {
            int c = grid[x[a]][y[a]];
            if (rule[c] == 'R') d[a] = (d[a] + 1) % 4;
            else if (rule[c] == 'L') d[a] = (d[a] + 3) % 4;
            else if (rule[c] == 'U') d[a] = (d[a] + 2) % 4;
            grid[x[a]][y[a]] = (unsigned char)((c + 1) % m);
            x[a] = (x[a] + dx[d[a]] + n) % n;
            y[a] = (y[a] + dy[d[a]] + n) % n;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) color_count[grid[i][j]]++;
    for (int c = 0; c < m; c++) printf("%lld%c", color_count[c], c + 1 == m ? '\n' : ' ');
    for (int a = 0; a < ants; a++) printf("%d %d %d\n", x[a], y[a], d[a]);
    return 0;
}
