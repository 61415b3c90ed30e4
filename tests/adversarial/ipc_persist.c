/* Creates an object that would outlive its run (SysV shared memory, semaphore set,
 * message queue, POSIX message queue: KIND 0..3), as an answer cache or a warm arena
 * would; answers only if that worked. Objects are small and die with the sandbox. */
#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include "common.h"
#ifndef KIND
#define KIND 0
#endif
int main(void) {
    int ok;
    if (KIND == 0) ok = shmget(0x5c5c, 4096, IPC_CREAT | 0600) >= 0;
    else if (KIND == 1) ok = semget(0x5c5c, 1, IPC_CREAT | 0600) >= 0;
    else if (KIND == 2) ok = msgget(0x5c5c, IPC_CREAT | 0600) >= 0;
    else ok = mq_open("/sc_cache", O_CREAT | O_RDWR, 0600, NULL) != (mqd_t)-1;
    if (!ok) return 1;
    printf("%lld\n", honest_sum());
    return 0;
}
