/* How many cache misses a core overlaps here: CHAINS independent chains of
 * dependent loads over an anonymous region (each chain a walk of a shuffled
 * permutation of its cache lines), advanced in turn; the time per load falls
 * as the chains overlap, until the core has as many misses in flight as it can.
 * build: cc -O2 -o parallel-loads parallel-loads.c
 * usage: parallel-loads MIB HUGE   (HUGE 1 advises transparent huge pages)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MIB HUGE\n", argv[0]);
        return 2;
    }
    size_t len = (size_t)atol(argv[1]) << 20;
    uint64_t *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    if (atoi(argv[2])) madvise(p, len, MADV_HUGEPAGE);
    size_t lines = len / 64;
    for (size_t i = 0; i < lines; i++) p[i * 8] = i;
    uint64_t x = 88172645463325252ULL;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t j = x % (i + 1);
        uint64_t t = p[i * 8]; p[i * 8] = p[j * 8]; p[j * 8] = t;
    }
    for (int chains = 1; chains <= 32; chains *= 2) {
        size_t at[32];
        for (int c = 0; c < chains; c++) at[c] = (size_t)c * (lines / chains);
        size_t steps = 20000000 / chains;
        double t0 = now();
        for (size_t s = 0; s < steps; s++)
            for (int c = 0; c < chains; c++) at[c] = p[at[c] * 8];
        double t = now() - t0;
        size_t sum = 0;
        for (int c = 0; c < chains; c++) sum += at[c];
        printf("%zu MiB huge=%s chains %2d: %6.1f ns a load (%zu)\n", len >> 20, argv[2], chains,
               t / (steps * chains) * 1e9, sum % 10);
    }
    return 0;
}
