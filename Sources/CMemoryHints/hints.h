// Cache hints Swift has no spelling for. Header-only: the functions are inlined into
// the Swift that calls them, one instruction each.
#ifndef SCRATCHCARD_MEMORY_HINTS_H
#define SCRATCHCARD_MEMORY_HINTS_H

/// Starts loading the cache line holding `address` for reading, without waiting for it.
static inline void scratch_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Starts loading the cache line holding `address` to be written, without waiting for it.
static inline void scratch_prefetch_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
