/* Never terminates: must end as a timeout. */
int main(void) {
    volatile unsigned long x = 0;
    for (;;) x++;
}
