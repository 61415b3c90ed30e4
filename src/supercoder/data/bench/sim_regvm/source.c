#include <stdio.h>
#include <string.h>

#define MAXP 512
#define NREG 8
#define STEP_LIMIT 200000000LL

char op[MAXP][8];
int ra[MAXP];
unsigned int rb[MAXP];
unsigned int reg[NREG];
int np;

int reg_index(const char *s) { return s[1] - '0'; }

int main() {
    char a[16], b[32];
    scanf("%d", &np);
    for (int i = 0; i < np; i++) {
        scanf("%7s", op[i]);
        ra[i] = 0;
        rb[i] = 0;
        if (!strcmp(op[i], "halt")) continue;
        scanf("%15s", a);
        ra[i] = reg_index(a);
        if (!strcmp(op[i], "dec") || !strcmp(op[i], "print")) continue;
        scanf("%31s", b);
        if (b[0] == 'r') rb[i] = (unsigned)reg_index(b);
        else { unsigned v; sscanf(b, "%u", &v); rb[i] = v; }
    }
    long long steps = 0;
    int pc = 0;
    while (pc >= 0 && pc < np) {
        if (++steps > STEP_LIMIT) { printf("step limit\n"); return 0; }
        const char *o = op[pc];
        if (!strcmp(o, "set")) reg[ra[pc]] = rb[pc];
        else if (!strcmp(o, "add")) reg[ra[pc]] += reg[rb[pc]];
        else if (!strcmp(o, "addi")) reg[ra[pc]] += rb[pc];
        else if (!strcmp(o, "mul")) reg[ra[pc]] *= reg[rb[pc]];
        else if (!strcmp(o, "xor")) reg[ra[pc]] ^= reg[rb[pc]];
        else if (!strcmp(o, "shr")) reg[ra[pc]] >>= (rb[pc] & 31);
        else if (!strcmp(o, "mod")) reg[ra[pc]] %= (rb[pc] ? rb[pc] : 1);
        else if (!strcmp(o, "dec")) reg[ra[pc]]--;
        else if (!strcmp(o, "jnz")) { if (reg[ra[pc]]) { pc = (int)rb[pc]; continue; } }
        else if (!strcmp(o, "print")) printf("%u\n", reg[ra[pc]]);
        else if (!strcmp(o, "halt")) break;
        pc++;
    }
    printf("steps %lld\n", steps);
    return 0;
}
