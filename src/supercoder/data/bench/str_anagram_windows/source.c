#include <stdio.h>
#include <string.h>

#define MAXLEN 250000
#define SIGMA 26

char text[MAXLEN + 5], pat[MAXLEN + 5];

int same(const int *a, const int *b) {
    for (int i = 0; i < SIGMA; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

int main(void) {
    int q;
    scanf("%s", text);
    scanf("%d", &q);
    int n = strlen(text);
    while (q--) {
        scanf("%s", pat);
        int m = strlen(pat);
        int need[SIGMA] = {0}, have[SIGMA] = {0};
        if (m > n) {
            puts("0 -1");
            continue;
        }
        for (int i = 0; i < m; i++) {
            need[pat[i] - 'a']++;
            have[text[i] - 'a']++;
        }
        int count = 0, last = -1;
        for (int i = 0;; i++) {
            if (same(need, have)) {
                count++;
                last = i;
            }
            if (i + m >= n) break;
            have[text[i] - 'a']--;
            have[text[i + m] - 'a']++;
        }
        printf("%d %d\n", count, last);
    }
    return 0;
}
