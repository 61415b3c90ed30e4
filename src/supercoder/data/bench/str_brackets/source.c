#include <stdio.h>

#define MAXN (1 << 18)

static char buf[MAXN + 2];

/* reads one line of brackets; returns its length or -1 at end of input */
static int read_line(void) {
    int c, len = 0;
    while ((c = getchar()) != EOF && c != '\n') {
        if ((c == '(' || c == ')') && len < MAXN) buf[len++] = (char)c;
    }
    if (c == EOF && len == 0) return -1;
    buf[len] = 0;
    return len;
}

int main(void) {
    int len, line = 0;
    long long grand = 0;
    while ((len = read_line()) >= 0) {
        long long balanced = 0;
        int longest = 0, depth_max = 0;
        for (int i = 0; i < len; i++) {
            int bal = 0;
            for (int j = i; j < len; j++) {
                bal += buf[j] == '(' ? 1 : -1;
                if (bal < 0) break;
                if (bal > depth_max) depth_max = bal;
                if (bal == 0) {
                    balanced++;
                    if (j - i + 1 > longest) longest = j - i + 1;
                }
            }
        }
        line++;
        grand += balanced;
        printf("%d: %lld %d %d\n", line, balanced, longest, depth_max);
    }
    printf("total %lld\n", grand);
    return 0;
}
