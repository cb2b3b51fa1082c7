/* answer_cache.c - the loop optimiser's answer cache (opt.h; docs/llvm.md, "Answer cache").
 *
 * A time skew's legality is a handful of ISL questions that cost 10-40 ms at every start of
 * a program, code cache hit or not. Their verdict depends only on the questions' texts (the
 * sets, written out: they hold every fact of the program that the verdict reads), on the
 * order and the shared operation budget in which this build asks them, and on ISL. So the
 * verdict is kept in a file of the user's cache folder, "opt/" and a 128-bit hash of the
 * texts, this build's file (path, size, modification time, inode), ISL's version and the
 * kind of question; a later start reads it back instead of asking. A file whose text is not
 * a whole verdict is ignored and the questions asked again; the same texts always give the
 * same verdict, from ISL or from the file, so `uir opt`'s text never depends on the cache.
 */
#include "opt.h"
#include "../util/cache.h"
#include <isl/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a file holds: this line and the verdict, a small integer. */
#define ANSWER_HEAD "uir answer 1 "

bool answer_key(const UirProgram *p, Hash128 *key, const char *kind)
{
	if (p->opt_no_cache)
		return false;
	*key = (Hash128)CACHE_HASH_INIT;
	cache_hash_str(key, "uir answer cache 1");
	cache_hash_str(key, kind);
	cache_hash_str(key, isl_version());
	return cache_hash_code(key, (const void *)answer_key);
}

static char *answer_path(const Hash128 *key)
{
	char *dir = cache_dir();
	if (!dir)
		return NULL;
	char *path = cache_path(dir, "opt/", key, "");
	free(dir);
	return path;
}

bool answer_get(const Hash128 *key, int *verdict)
{
	char *path = answer_path(key);
	FILE *f = path ? fopen(path, "rb") : NULL;
	free(path);
	if (!f)
		return false;
	char buf[64];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	size_t h = strlen(ANSWER_HEAD);
	if (n <= h || memcmp(buf, ANSWER_HEAD, h) != 0)
		return false;
	char *end;
	long v = strtol(buf + h, &end, 10);
	if (end == buf + h || strcmp(end, "\n") != 0 || v < -1 || v > 64)
		return false;
	*verdict = (int)v;
	return true;
}

void answer_put(const Hash128 *key, int verdict)
{
	char *path = answer_path(key);
	if (!path)
		return;
	char buf[64];
	int n = snprintf(buf, sizeof buf, ANSWER_HEAD "%d\n", verdict);
	cache_write(path, buf, (size_t)n);
	free(path);
}
