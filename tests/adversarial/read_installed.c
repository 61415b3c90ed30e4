/* Reads a file under /usr, as a candidate would read a system-wide install's bundled
 * hidden outputs (site-packages/supercoder/data/...); answers only if it could. */
#include "common.h"
int main(void) {
    FILE *f = fopen(PATH, "rb");
    if (!f) return 1;
    fclose(f);
    printf("%lld\n", honest_sum());
    return 0;
}
