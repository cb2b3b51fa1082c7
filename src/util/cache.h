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

/* Adds to H what identifies the file FILE: its path, size, modification time and inode (a
 * build of uir, a compiler). False, H unchanged, when FILE cannot be found. */
bool cache_hash_file(Hash128 *h, const char *file);
/* cache_hash_file() of the executable or shared library whose code holds ADDR (dladdr):
 * this build of the code at ADDR. */
bool cache_hash_code(Hash128 *h, const void *addr);
/* The name of H's file in the cache folder DIR, malloc'ed: "DIR/", PREFIX (a subfolder
 * "opt/", a name's start "pch-", or ""), H's 32 hex digits and EXT. */
char *cache_path(const char *dir, const char *prefix, const Hash128 *h, const char *ext);
/* Writes the N bytes at DATA to PATH, making its folders: under a temporary name renamed
 * into place, so that a reader at the same time sees the whole file or none. A write that
 * fails leaves nothing (a cache that cannot be written costs only the time). */
void cache_write(const char *path, const void *data, size_t n);

#endif
