/* Touches memory in 32 MiB steps up to 8 GiB (bounded), then answers. */
#include <stdlib.h>
#include <string.h>
#include "common.h"
int main(void) {
    for (int i = 0; i < 256; i++) {
        char *p = malloc(32u << 20);
        if (!p) abort();
        memset(p, i + 1, 32u << 20);
    }
    printf("%lld\n", honest_sum());
    return 0;
}
