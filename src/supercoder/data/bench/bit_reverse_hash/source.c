#include <stdio.h>
#include <stdint.h>

typedef unsigned int u32;
typedef unsigned long long u64;

static u32 state;

static u32 next_rand(void) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

static u32 reverse_bits(u32 x) {
    u32 r = 0;
    for (int i = 0; i < 32; i++) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

static u32 gray_decode(u32 g) {
    u32 b = 0;
    while (g) {
        b ^= g;
        g >>= 1;
    }
    return b;
}

int main(void) {
    int t;
    scanf("%d", &t);
    while (t--) {
        u32 seed;
        int n;
        scanf("%u %d", &seed, &n);
        state = seed ? seed : 0x9e3779b9u;
        u64 h = 1469598103934665603ULL;
        u32 pal = 0;
        for (int i = 0; i < n; i++) {
            u32 x = next_rand();
            if (i & 1) x >>= (x & 31);
            u32 r = reverse_bits(x);
            u32 d = gray_decode(x);
            if (r < x) pal++;
            h = (h ^ (r + (u64)d * 3)) * 1099511628211ULL;
        }
        printf("%016llx %u\n", h, pal);
    }
    return 0;
}
