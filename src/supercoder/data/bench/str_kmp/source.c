#include <stdio.h>
#include <string.h>

#define MAXT 1000005
#define MAXP 100005

char text[MAXT], pat[MAXP];
int fail[MAXP];

int read_token(char *buf, int cap) {
    int c = getchar(), len = 0;
    while (c == ' ' || c == '\n' || c == '\r') c = getchar();
    while (c != EOF && c != ' ' && c != '\n' && c != '\r') {
        if (len < cap - 1) buf[len++] = (char)c;
        c = getchar();
    }
    buf[len] = 0;
    return len;
}

void build(const char *p, int m) {
    fail[0] = 0;
    int k = 0;
    for (int i = 1; i < m; i++) {
        while (k > 0 && p[i] != p[k]) k = fail[k - 1];
        if (p[i] == p[k]) k++;
        fail[i] = k;
    }
}

/* occurrences (overlapping allowed) and position of the first one, or -1 */
long long search(const char *t, int n, const char *p, int m, int *first) {
    long long hits = 0;
    int k = 0;
    *first = -1;
    for (int i = 0; i < n; i++) {
        while (k > 0 && t[i] != p[k]) k = fail[k - 1];
        if (t[i] == p[k]) k++;
        if (k == m) {
            if (*first < 0) *first = i - m + 1;
            hits++;
            k = fail[k - 1];
        }
    }
    return hits;
}

int main(void) {
    int n = read_token(text, MAXT);
    char qbuf[32];
    read_token(qbuf, sizeof qbuf);
    int q = 0;
    for (char *s = qbuf; *s; s++) q = q * 10 + (*s - '0');
    long long all = 0;
    while (q--) {
        int m = read_token(pat, MAXP), first;
        build(pat, m);
        long long h = search(text, n, pat, m, &first);
        all += h;
        printf("%lld %d\n", h, first);
    }
    printf("%lld\n", all);
    return 0;
}
