#include <stdio.h>

#define MAXW 20005

int cell[MAXW], nxt[MAXW];
char buf[MAXW];

int main(void) {
    int rule, w, t;
    scanf("%d %d %d", &rule, &w, &t);
    scanf("%s", buf);
    for (int i = 0; i < w; i++) cell[i] = buf[i] - '0';
    int every = t / 8;
    if (every == 0) every = 1;
    for (int s = 1; s <= t; s++) {
        for (int i = 0; i < w; i++) {
            int l = cell[(i - 1 + w) % w];
            int c = cell[i];
            int r = cell[(i + 1) % w];
            int idx = l * 4 + c * 2 + r;
            nxt[i] = (rule >> idx) & 1;
        }
        int ones = 0;
        for (int i = 0; i < w; i++) {
            cell[i] = nxt[i];
            ones += cell[i];
        }
        if (s % every == 0 || s == t) printf("%d %d\n", s, ones);
    }
    unsigned int h = 2166136261u;
    for (int i = 0; i < w; i++) h = (h ^ (unsigned)cell[i]) * 16777619u;
    printf("%u\n", h);
    return 0;
}
