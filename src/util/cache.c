/* cache.c - what the caches in the user's cache directory share (util/cache.h). */
#include "cache.h"
#include "../uir_internal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cache_hash_add(Hash128 *h, const void *data, size_t n)
{
	const unsigned char *s = data;
	for (size_t i = 0; i < n; i++) {
		h->a = (h->a ^ s[i]) * 0x100000001b3ull;
		h->b = (h->b ^ (unsigned char)~s[i]) * 0x100000001b3ull;
	}
}

void cache_hash_str(Hash128 *h, const char *s)
{
	cache_hash_add(h, s, strlen(s) + 1);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	char *s = xmalloc(n + m + 1);
	memcpy(s, a, n);
	memcpy(s + n, b, m + 1);
	return s;
}

char *cache_dir(void)
{
	const char *e = getenv("UIR_CACHE");
	if (e && !strcmp(e, "0"))
		return NULL;
	const char *d = getenv("UIR_CACHE_DIR");
	if (d && *d)
		return join(d, "");
	d = getenv("XDG_CACHE_HOME");
	if (d && *d == '/')
		return join(d, "/uir");
	d = getenv("HOME");
	if (d && *d == '/')
		return join(d, "/.cache/uir");
	return NULL;
}

bool cache_make_dirs(const char *path)
{
	char *dir = join(path, "");
	bool ok = true;
	for (char *s = dir + 1; *s && ok; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		ok = mkdir(dir, 0777) == 0 || errno == EEXIST;
		*s = '/';
	}
	ok = ok && (mkdir(dir, 0777) == 0 || errno == EEXIST);
	free(dir);
	return ok;
}
