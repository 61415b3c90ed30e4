/* Looks for any place where a file could outlive the run: every directory outside
 * /proc that is writable, /dev/shm, a FIFO; answers only if one exists. Bounded walk.
 * The run's working folder (/box, its cwd) is writable but its own, fresh per run
 * (working_folder.c shows nothing there outlives it): skipped. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

static int visited;

static int create_in(const char *dir) {
    char path[4096];
    if (!strncmp(dir, "/box", 4) && (dir[4] == 0 || dir[4] == '/')) return 0;
    snprintf(path, sizeof path, "%s/.sc_probe", dir);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(path);
        write(2, dir, strlen(dir));
        write(2, " is writable\n", 13);
        return 1;
    }
    if (mkfifo(path, 0600) == 0) { unlink(path); return 1; }
    return 0;
}

static int walk(const char *dir, int depth) {
    if (visited++ > 30000 || depth > 12) return 0;
    if (create_in(dir)) return 1;
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        char sub[4096];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
        if (!strcmp(sub, "/proc") || lstat(sub, &st) || !S_ISDIR(st.st_mode)) continue;
        found = walk(sub, depth + 1);
    }
    if (d) closedir(d);
    return found;
}

int main(void) {
    static const char *places[] = {"/", "/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run", "/dev", "/sc",
                                   "/sc/in", "/proc/1"};
    int found = 0;
    for (unsigned i = 0; i < sizeof places / sizeof places[0] && !found; i++) found = create_in(places[i]);
    if (!found) found = walk("/", 0);
    if (!found) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
