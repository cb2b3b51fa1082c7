/* cache.c - what the caches in the user's cache directory share (util/cache.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "cache.h"
#include "../uir_internal.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

bool cache_hash_file(Hash128 *h, const char *file)
{
	struct stat st;
	if (!file || stat(file, &st) != 0)
		return false;
	cache_hash_str(h, file);
	int64_t id[4] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec,
			  (int64_t)st.st_ino };
	cache_hash_add(h, id, sizeof id);
	return true;
}

bool cache_hash_code(Hash128 *h, const void *addr)
{
	Dl_info info;
	return dladdr(addr, &info) && cache_hash_file(h, info.dli_fname);
}

char *cache_path(const char *dir, const char *prefix, const Hash128 *h, const char *ext)
{
	size_t n = strlen(dir) + strlen(prefix) + 34 + strlen(ext);
	char *s = xmalloc(n);
	snprintf(s, n, "%s/%s%016llx%016llx%s", dir, prefix, (unsigned long long)h->a, (unsigned long long)h->b, ext);
	return s;
}

void cache_write(const char *path, const void *data, size_t n)
{
	char *dir = join(path, "");
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		free(dir);
		return;
	}
	*slash = 0;
	char *tmp = join(dir, "/.tmp-XXXXXX");
	bool made = cache_make_dirs(dir);
	free(dir);
	int fd = made ? mkstemp(tmp) : -1;
	if (fd < 0) {
		free(tmp);
		return;
	}
	FILE *f = fdopen(fd, "wb");
	bool ok = f && fwrite(data, 1, n, f) == n;
	ok = f && fclose(f) == 0 && ok;
	if (!f)
		close(fd);
	if (!ok || rename(tmp, path) != 0)
		remove(tmp);
	free(tmp);
}
