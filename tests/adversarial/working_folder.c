/* Uses the run's writable working folder (/box) and its output by name (/dev/stdout,
 * /dev/stderr) to outlive the run or escape its bounds. Prints what it got:
 *   found     a mark an earlier run left (in /box, a folder below it, a FIFO, a device)
 *   node      it made a device node, or a FIFO outside /box
 *   scratch   it saw the supervisor's scratch (/sc/work) or another run's copies
 *   link      a link it left was read back (the read-back follows links)
 * then writes marks for the next run, a link to a host file, an unreadable file, a FIFO,
 * and MODE=1: a file past the output limit (bounded: stops at 64 MiB). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifndef MODE
#define MODE 0
#endif
int main(void) {
    static const char *marks[] = {"mark", "sub/mark", "/box/.mark", "/dev/mark", "/tmp/mark"};
    for (unsigned i = 0; i < sizeof marks / sizeof *marks; i++)
        if (access(marks[i], F_OK) == 0) printf("found %s\n", marks[i]);
    if (mknod("null2", S_IFCHR | 0666, makedev(1, 3)) == 0) puts("node null2");
    if (mkfifo("/dev/fifo", 0600) == 0) puts("node /dev/fifo");
    if (access("/sc/work", F_OK) == 0 || access("/sc/work/box", F_OK) == 0) puts("scratch");
    mkdir("sub", 0755);
    for (unsigned i = 0; i < 3; i++) {
        FILE *f = fopen(marks[i], "w");
        if (f) { fputs("x\n", f); fclose(f); }
    }
    if (symlink("/etc/passwd", "link") == 0) puts("made link");
    int fd = open("closed", O_WRONLY | O_CREAT, 0000);
    if (fd >= 0) { if (write(fd, "c\n", 2) != 2) puts("short"); close(fd); }
    mkfifo("fifo", 0600); /* the read-back must not wait on it */
    FILE *so = fopen("/dev/stdout", "w");
    if (so) { fputs("by name\n", so); fclose(so); }
    if (MODE == 1) {
        static char block[1 << 16];
        memset(block, 'z', sizeof block);
        FILE *big = fopen("big", "w");
        for (int k = 0; big && k < 1024; k++)
            if (fwrite(block, 1, sizeof block, big) != sizeof block) { puts("big refused"); break; }
        if (big) fclose(big);
    }
    puts("done");
    return 0;
}
