/* Opens kernel settings for writing (/proc/sys, /sys, /proc/sysrq-trigger, its
 * supervisor's /proc/1 files); answers only if any open succeeded. It never writes
 * (opening does not change anything). */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

static int tried;

static int writable(const char *path, int depth) {
    struct stat st;
    if (tried++ > 20000 || depth > 8 || lstat(path, &st) != 0) return 0;
    /* mode 0666 files (timerslack_ns...) refuse writes from other processes at write time */
    if (S_ISREG(st.st_mode) && !(st.st_mode & S_IWOTH)) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) return 0;
        close(fd);
        write(2, path, strlen(path));
        write(2, " opened for writing\n", 20);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) return 0;
    DIR *d = opendir(path);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        /* attr/ files open for anyone; the kernel refuses writes from another process */
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "attr")) continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        found = writable(sub, depth + 1);
    }
    if (d) closedir(d);
    return found;
}

int main(void) {
    static const char *roots[] = {"/proc/sys", "/sys", "/proc/sysrq-trigger", "/proc/1", "/proc/kcore"};
    int found = 0;
    for (unsigned i = 0; i < sizeof roots / sizeof roots[0] && !found; i++) found = writable(roots[i], 0);
    if (!found) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
