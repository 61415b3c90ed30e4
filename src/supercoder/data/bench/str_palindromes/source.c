#include <stdio.h>
#include <string.h>

#define MAXN 200005

char s[MAXN];
int n;
long long total;
int best_len, best_pos;

static void expand(int lo, int hi) {
    while (lo >= 0 && hi < n && s[lo] == s[hi]) {
        total++;
        if (hi - lo + 1 > best_len) {
            best_len = hi - lo + 1;
            best_pos = lo;
        }
        lo--;
        hi++;
    }
}

int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        scanf("%s", s);
        n = strlen(s);
        total = 0;
        best_len = 0;
        best_pos = 0;
        for (int c = 0; c < n; c++) {
            expand(c, c);
            expand(c, c + 1);
        }
        printf("%lld %d %d\n", total, best_len, best_pos);
    }
    return 0;
}
