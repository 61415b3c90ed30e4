/* Opens the baseline binary to read or map it (to run its code in-process, or copy
 * it); answers only if the open worked. */
#include <fcntl.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    int fd = open("/sc/bin/baseline", O_RDONLY);
    if (fd < 0) return 1;
    close(fd);
    printf("%lld\n", honest_sum());
    return 0;
}
