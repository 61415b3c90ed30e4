/* Floods stdout (bounded by the sandbox's output limit or 4 GiB). */
#include <string.h>
#include <stdio.h>
int main(void) {
    static char buf[65536];
    memset(buf, 'y', sizeof buf);
    for (long i = 0; i < 65536; i++) fwrite(buf, 1, sizeof buf, stdout);
    return 0;
}
