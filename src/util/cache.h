/* cache.h - what the caches in the user's cache directory share (util/cache.c): the JIT's
 * compiled code (llvm/code_cache.c) and the CUDA emulator's precompiled header
 * (runner/pch.c). */
#ifndef UIR_UTIL_CACHE_H
#define UIR_UTIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A 128-bit key: FNV-1a 64 twice, from two offset bases, the second over the bytes'
 * complement, so that two different inputs meet in one file name with probability about
 * 2^-128. Start from CACHE_HASH_INIT. */
typedef struct Hash128 {
	uint64_t a, b;
} Hash128;
#define CACHE_HASH_INIT { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull }
void cache_hash_add(Hash128 *h, const void *data, size_t n);
/* S with its terminating NUL (so that "ab" "c" and "a" "bc" differ). */
void cache_hash_str(Hash128 *h, const char *s);

/* The cache directory, malloc'ed: $UIR_CACHE_DIR, else $XDG_CACHE_HOME/uir, else
 * $HOME/.cache/uir; NULL with UIR_CACHE=0 or when no place is named. */
char *cache_dir(void);
/* mkdir -p PATH (the cache's parents may not exist yet). */
bool cache_make_dirs(const char *path);

#endif
