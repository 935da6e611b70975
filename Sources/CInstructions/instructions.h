// Single instructions Swift has no reliable spelling for: cache hints, and a square root
// of two lanes at once. Header-only: the functions are inlined into the Swift that calls
// them, one instruction each.
#ifndef SCRATCHCARD_INSTRUCTIONS_H
#define SCRATCHCARD_INSTRUCTIONS_H

/// Starts loading the cache line holding `address` for reading, without waiting for it.
static inline void scratch_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Starts loading the cache line holding `address` to be written, without waiting for it.
static inline void scratch_prefetch_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// Two doubles, imported into Swift as SIMD2<Double>.
typedef double scratch_double2 __attribute__((ext_vector_type(2)));

/// The square roots of both lanes in one instruction (sqrtpd): NaN where a lane is
/// negative. Swift's own `squareRoot()` of a SIMD2<Double> comes out as one call per lane
/// where the compiler cannot prove the lanes non-negative.
static inline scratch_double2 scratch_square_root2(scratch_double2 x) {
    return __builtin_elementwise_sqrt(x);
}

#endif
