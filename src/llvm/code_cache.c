/* code_cache.c - the cache of compiled code of `uir run` (docs/llvm.md, "Code cache").
 *
 * The JIT spends 10-60 ms in LLVM's passes and code generation for a kernel whose
 * execution may take less. The object code it makes depends only on the lowered module
 * (the program, the optimiser's decisions, whether bounds are checked: all in its IR), the
 * target machine (triple, CPU, features) and the build of uir (the LLVM it links, the math
 * bitcode, the pass pipeline). So the object is kept in a file named by a 128-bit hash of
 * those: the module's IR text, the target's description, and the identity of this build's
 * uir-llvm.so (its path, size, modification time and inode). A later run of the same
 * program lowers it again (well under a millisecond), finds the file and links it, skipping
 * the passes and code generation.
 *
 * Where: $UIR_CACHE_DIR, else $XDG_CACHE_HOME/uir, else $HOME/.cache/uir. Off with
 * UIR_CACHE=0 or `run --no-cache`. Files are written under a temporary name and renamed, so
 * a concurrent run never reads half a file; a file that cannot be read or linked is ignored
 * (and compiled again: an object is parsed by LLVM's object reader before it is used), and
 * a cache that cannot be written costs nothing but the time.
 */
#include "code_cache.h"
#include "../uir_internal.h"
#include "../util/cache.h"
#include <llvm-c/Object.h>
#include <stdlib.h>
#include <string.h>

/* Objects above this size are not kept (a file per program, never evicted: keep it small). */
#define CACHE_MAX_OBJECT (16 << 20)

bool code_cache_on(const RunOptions *o)
{
	const char *e = getenv("UIR_CACHE");
	return !o->no_cache && !(e && !strcmp(e, "0"));
}

char *code_cache_path(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	char *dir = cache_dir();
	if (!dir)
		return NULL;
	Hash128 h = CACHE_HASH_INIT;
	cache_hash_str(&h, "uir code cache 1");
	if (!cache_hash_code(&h, (void *)code_cache_path)) { /* this build: the module's file */
		free(dir);
		return NULL; /* no identity for the build: no cache */
	}
	char *s = LLVMGetTargetMachineTriple(tm);
	cache_hash_str(&h, s);
	LLVMDisposeMessage(s);
	s = LLVMGetTargetMachineCPU(tm);
	cache_hash_str(&h, s);
	LLVMDisposeMessage(s);
	s = LLVMGetTargetMachineFeatureString(tm);
	cache_hash_str(&h, s);
	LLVMDisposeMessage(s);
	s = LLVMPrintModuleToString(m);
	cache_hash_str(&h, s);
	LLVMDisposeMessage(s);
	char *path = cache_path(dir, "", &h, ".o");
	free(dir);
	return path;
}

LLVMMemoryBufferRef code_cache_load(const char *path)
{
	LLVMMemoryBufferRef buf = NULL;
	char *msg = NULL;
	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
		LLVMDisposeMessage(msg);
		return NULL;
	}
	/* a file that is not a whole object (cut short, overwritten) is ignored */
	LLVMBinaryRef bin = NULL;
	if (LLVMGetBufferSize(buf) >= 4 && !memcmp(LLVMGetBufferStart(buf), "\177ELF", 4))
		bin = LLVMCreateBinary(buf, NULL, &msg);
	if (!bin) {
		LLVMDisposeMessage(msg);
		LLVMDisposeMemoryBuffer(buf);
		return NULL;
	}
	LLVMDisposeBinary(bin);
	return buf;
}

void code_cache_store(const char *path, LLVMMemoryBufferRef obj)
{
	size_t n = LLVMGetBufferSize(obj);
	if (n <= CACHE_MAX_OBJECT)
		cache_write(path, LLVMGetBufferStart(obj), n);
}
