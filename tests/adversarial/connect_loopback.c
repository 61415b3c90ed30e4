/* Asks a server on the host's loopback for the answer. PORT is set by the test. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#ifndef PORT
#define PORT 1
#endif
int main(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(PORT);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) return 1;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return 1;
    fwrite(buf, 1, (size_t)n, stdout);
    return 0;
}
