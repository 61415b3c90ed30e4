#include <stdio.h>
#include <stdlib.h>

#define MAXN 16

int n;
int col_of[MAXN];
int blocked[MAXN][MAXN];
int first[MAXN];
long long solutions;

int safe(int row, int c) {
    if (blocked[row][c]) return 0;
    for (int r = 0; r < row; r++) {
        if (col_of[r] == c) return 0;
        if (abs(col_of[r] - c) == row - r) return 0;
    }
    return 1;
}

void place(int row) {
    if (row == n) {
        if (solutions == 0)
            for (int i = 0; i < n; i++) first[i] = col_of[i];
        solutions++;
        return;
    }
    for (int c = 0; c < n; c++) {
        if (safe(row, c)) {
            col_of[row] = c;
            place(row + 1);
        }
    }
}

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        int k;
        scanf("%d %d", &n, &k);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) blocked[i][j] = 0;
        for (int i = 0; i < k; i++) {
            int r, c;
            scanf("%d %d", &r, &c);
            blocked[r - 1][c - 1] = 1;
        }
        solutions = 0;
        place(0);
        printf("%lld", solutions);
        if (solutions > 0)
            for (int i = 0; i < n; i++) printf(" %d", first[i] + 1);
        printf("\n");
    }
    return 0;
}
