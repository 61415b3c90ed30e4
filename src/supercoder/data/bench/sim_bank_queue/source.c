#include <stdio.h>

#define MAXK 64
#define QCAP 100000

typedef long long ll;

unsigned long long rng_state;
unsigned int rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned int)(rng_state >> 33);
}

ll freeat[MAXK];
ll served_by[MAXK];
ll q[QCAP];
int qh, qt, qn;

int main() {
    int k, n, cap, amax, smax;
    unsigned long long seed;
    scanf("%d %d %d %d %d %llu", &k, &n, &cap, &amax, &smax, &seed);
    rng_state = seed;
    ll now = 0, total_wait = 0, max_wait = 0;
    int served = 0, balked = 0, longest = 0;
    for (int c = 0; c < n; c++) {
        now += rnd() % (unsigned)amax;
        ll service = 1 + rnd() % (unsigned)smax;
        /* customers who have started service leave the waiting line */
        while (qn > 0 && q[qh] <= now) {
            qh = (qh + 1) % QCAP;
            qn--;
        }
        if (qn >= cap) { balked++; continue; }
        int best = 0;
        for (int j = 1; j < k; j++)
            if (freeat[j] < freeat[best]) best = j;
        ll start = freeat[best] > now ? freeat[best] : now;
        ll wait = start - now;
        total_wait += wait;
        if (wait > max_wait) max_wait = wait;
        freeat[best] = start + service;
        served_by[best]++;
        served++;
        if (start > now) {
            q[qt] = start;
            qt = (qt + 1) % QCAP;
            qn++;
            if (qn > longest) longest = qn;
        }
    }
    int busiest = 0;
    for (int j = 1; j < k; j++)
        if (served_by[j] > served_by[busiest]) busiest = j;
    printf("%d %d\n%lld %lld\n%d %d\n", served, balked, total_wait, max_wait, longest, busiest + 1);
    return 0;
}
