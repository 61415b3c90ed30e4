/* Reads its supervisor's counters (/proc/1: CPU time, context switches, memory), which
 * a run could drive (e.g. one wakeup per write) to leave a number for the next run;
 * answers only if they are readable. */
#include <fcntl.h>
#include <unistd.h>
#include "common.h"
int main(void) {
    static const char *files[] = {"/proc/1/status", "/proc/1/stat", "/proc/1/sched", "/proc/1/schedstat",
                                  "/proc/1/task/1/status"};
    int readable = 0;
    char buf[256];
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
        int fd = open(files[i], O_RDONLY);
        if (fd < 0) continue;
        readable |= read(fd, buf, sizeof buf) > 0;
        close(fd);
    }
    if (!readable) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
