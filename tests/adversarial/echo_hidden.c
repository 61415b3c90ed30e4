/* Tries to carry a hidden test's data out of the evaluator in its verdict.
 * ECHO: copies its stdin (the test's input) to stderr and fails, so the runtime-error
 * message quotes the input; otherwise prints a wrong answer, so the diff hint quotes
 * the expected output's first line. Before: both reached TestResult.detail and
 * Verdict.message for hidden tests (check --json, the run store). Bounded: 64 KiB. */
#include <stdio.h>
#include <unistd.h>
int main(void) {
#ifdef ECHO
    char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n > 0 && write(2, buf, (size_t)n) < 0) return 3;
    return 1;
#else
    puts("0");
    return 0;
#endif
}
