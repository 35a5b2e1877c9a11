/* prefetch-turns.c, where each step's work also reads and writes 64 words
 * of the chain's own buffer of KIB KiB (a walk's states and stack), so the
 * chains' working sets add up in the caches as walks' do.
 * build: cc -O2 -o prefetch-footprint prefetch-footprint.c
 * usage: prefetch-footprint MIB WORK KIB
 *
 * The original question: whether software prefetches hide misses when each step also does work:
 * CHAINS independent chains of dependent loads over a region, advanced in
 * turn; each step does WORK dependent ALU operations (standing for a
 * decision's computing), and either loads its next line plainly (the core's
 * window overlaps what it can) or prefetches it a turn ahead (as walks
 * taking turns do).
 * build: cc -O2 -o prefetch-turns prefetch-turns.c
 * */
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
        fprintf(stderr, "usage: %s MIB WORK KIB\n", argv[0]);
        return 2;
    }
    size_t len = (size_t)atol(argv[1]) << 20;
    long w = atol(argv[2]);
    size_t words = ((size_t)atol(argv[3]) << 10) / 8;
    uint64_t *own = calloc(32 * words, 8);
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
    for (int mode = 0; mode < 2; mode++) {
        for (int chains = 1; chains <= 16; chains *= 2) {
            size_t at[32];
            for (int c = 0; c < chains; c++) at[c] = (size_t)c * (lines / chains);
            size_t steps = 4000000 / chains;
            double t0 = now();
            for (size_t s = 0; s < steps; s++)
                for (int c = 0; c < chains; c++) {
                    uint64_t next = p[at[c] * 8];
                    uint64_t v = work(next, w);
                    uint64_t *mine = own + c * words;
                    for (int k = 0; k < 64; k++) {
                        size_t at_word = (v + k * 1031) % words;
                        v += mine[at_word];
                        mine[at_word] = v;
                    }
                    acc += v;
                    at[c] = next;
                    if (mode) __builtin_prefetch(&p[next * 8]);
                }
            double t = now() - t0;
            printf("%zu MiB KiB %s work %ld %s chains %2d: %6.1f ns a step\n", len >> 20, argv[3], w,
                   mode ? "prefetched" : "plain", chains, t / (steps * chains) * 1e9);
        }
    }
    printf("(%lu)\n", (unsigned long)(acc % 10));
    return 0;
}
