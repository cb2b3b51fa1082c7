/* code_cache.h - the cache of compiled code of `uir run` (code_cache.c, docs/llvm.md "Code
 * cache"). */
#ifndef UIR_LLVM_CODE_CACHE_H
#define UIR_LLVM_CODE_CACHE_H

#include "../uir_internal.h"
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* Whether runs with options O use the cache: not with --no-cache or UIR_CACHE=0. */
bool code_cache_on(const RunOptions *o);
/* The file (malloc'ed) that holds, or will hold, the object code of the lowered module M
 * (not yet optimised) for TM with this build; NULL when the cache has no place (no
 * $UIR_CACHE_DIR, $XDG_CACHE_HOME or $HOME). Costs a print of M's IR. */
char *code_cache_path(LLVMModuleRef m, LLVMTargetMachineRef tm);
/* The object at PATH, or NULL when there is none (or it is not an ELF object). The caller
 * owns the buffer. */
LLVMMemoryBufferRef code_cache_load(const char *path);
/* Keeps OBJ at PATH (written under a temporary name, then renamed); silent on failure. */
void code_cache_store(const char *path, LLVMMemoryBufferRef obj);

#endif
