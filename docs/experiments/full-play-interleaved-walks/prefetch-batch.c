/* prefetch-turns.c with BATCH lines asked for at each step instead of one
 * (a walk's lookup batch asks for each child's record, two lines each):
 * the chain follows the first; the others are asked for and read a turn
 * later, as the batch's records are.
 * build: cc -O2 -o prefetch-batch prefetch-batch.c
 * usage: prefetch-batch MIB WORK BATCH
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

static inline uint64_t work(uint64_t v, long n) {
    for (long i = 0; i < n; i++) {
        v = v * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(v));
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s MIB WORK BATCH\n", argv[0]);
        return 2;
    }
    size_t len = (size_t)atol(argv[1]) << 20;
    long w = atol(argv[2]);
    int batch = atoi(argv[3]);
    uint64_t *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    madvise(p, len, MADV_HUGEPAGE);
    size_t lines = len / 64;
    for (size_t i = 0; i < lines; i++) p[i * 8] = i;
    uint64_t x = 88172645463325252ULL;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t j = x % (i + 1);
        uint64_t t = p[i * 8]; p[i * 8] = p[j * 8]; p[j * 8] = t;
    }
    uint64_t acc = 0;
    for (int chains = 1; chains <= 16; chains *= 2) {
        size_t at[32];
        for (int c = 0; c < chains; c++) at[c] = (size_t)c * (lines / chains);
        size_t steps = 2000000 / chains;
        double t0 = now();
        for (size_t s = 0; s < steps; s++)
            for (int c = 0; c < chains; c++) {
                uint64_t next = p[at[c] * 8];
                for (int b = 1; b < batch; b++) acc += p[((at[c] * 2654435761u + b * 40503u) % lines) * 8];
                acc += work(next, w);
                at[c] = next;
                __builtin_prefetch(&p[next * 8]);
                for (int b = 1; b < batch; b++) __builtin_prefetch(&p[((next * 2654435761u + b * 40503u) % lines) * 8]);
            }
        double t = now() - t0;
        printf("%zu MiB work %ld batch %d chains %2d: %6.1f ns a step\n", len >> 20, w, batch, chains,
               t / (steps * chains) * 1e9);
    }
    printf("(%lu)\n", (unsigned long)(acc % 10));
    return 0;
}
