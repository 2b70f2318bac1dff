// The Rust SDK's per-agent random stream (`Ctx::rng`), bit for bit: ChaCha8 seeded through
// rand_core's `seed_from_u64` (PCG32 expansion) from `derive(seed, 0xA6E7)`. `croupier build`
// writes this header beside the generated bindings, so any C agent can `#include
// "croupier_rng.h"`: seed it in `start` with `rng_seed(&rng, info->seed)` and draw with
// `rng_below`. It is what lets the C twins of `durak/cheapest` and `uno/primary` draw the
// very numbers the Rust agents draw; an agent that only needs *some* randomness can call
// the host's `random` import instead.
#ifndef CROUPIER_RNG_H
#define CROUPIER_RNG_H
#include <stdint.h>

typedef struct {
    uint32_t key[8];
    uint64_t counter; // next block
    uint32_t block[16];
    int used;         // words of `block` consumed (16 = empty)
} game_rng;

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static void rng_seed(game_rng *r, uint64_t seed) {
    // GameRng::derive: the SplitMix64 finaliser over seed ^ stream * golden ratio.
    uint64_t z = seed ^ (0xA6E7ull * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    uint64_t state = z ^ (z >> 31);
    // rand_core's seed_from_u64: PCG32 output words become the 32-byte key.
    for (int i = 0; i < 8; i++) {
        state = state * 6364136223846793005ull + 11634580027462260723ull;
        uint32_t xorshifted = (uint32_t)(((state >> 18) ^ state) >> 27);
        uint32_t rot = (uint32_t)(state >> 59);
        r->key[i] = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
    r->counter = 0;
    r->used = 16;
}

#define QR(a, b, c, d)                                                                     \
    a += b; d ^= a; d = rotl32(d, 16);                                                     \
    c += d; b ^= c; b = rotl32(b, 12);                                                     \
    a += b; d ^= a; d = rotl32(d, 8);                                                      \
    c += d; b ^= c; b = rotl32(b, 7);

static void rng_refill(game_rng *r) {
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++) in[4 + i] = r->key[i];
    in[12] = (uint32_t)r->counter;
    in[13] = (uint32_t)(r->counter >> 32);
    in[14] = 0; // stream 0
    in[15] = 0;
    uint32_t x[16];
    for (int i = 0; i < 16; i++) x[i] = in[i];
    for (int i = 0; i < 4; i++) { // 8 rounds = 4 double rounds
        QR(x[0], x[4], x[8], x[12]) QR(x[1], x[5], x[9], x[13])
        QR(x[2], x[6], x[10], x[14]) QR(x[3], x[7], x[11], x[15])
        QR(x[0], x[5], x[10], x[15]) QR(x[1], x[6], x[11], x[12])
        QR(x[2], x[7], x[8], x[13]) QR(x[3], x[4], x[9], x[14])
    }
    for (int i = 0; i < 16; i++) r->block[i] = x[i] + in[i];
    r->counter++;
    r->used = 0;
}

static uint64_t rng_next_u64(game_rng *r) {
    // Words are consumed in pairs, low word first; 16 is even, so a pair never straddles blocks.
    if (r->used >= 16) rng_refill(r);
    uint64_t lo = r->block[r->used], hi = r->block[r->used + 1];
    r->used += 2;
    return lo | (hi << 32);
}

// Uniform in 0..n (n > 0) by rejection, exactly as GameRng::below.
static uint32_t rng_below(game_rng *r, uint64_t n) {
    for (;;) {
        uint64_t v = rng_next_u64(r);
        if (v <= UINT64_MAX - n || v < UINT64_MAX - (UINT64_MAX % n)) return (uint32_t)(v % n);
    }
}
#endif
