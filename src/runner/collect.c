/* collect.c - finding the tests named on the command line: `.uir` files, and folders
 * searched recursively for them (docs/testing.md, "Which files are tests"). Everything else in a
 * folder (`*.ref.cu`, `.npy` inputs, notes) is skipped, and so are names that start with a dot.
 */
#include "runner_int.h"
#include "../util/files.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The folders above the one being searched, to stop at a symbolic link that loops. */
typedef struct Ancestor {
	dev_t dev;
	ino_t ino;
	const struct Ancestor *up;
} Ancestor;

static bool is_uir_name(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && strcmp(name + n - 4, ".uir") == 0;
}

static void add(char ***list, int *n, const char *path)
{
	*list = ut_xrealloc(*list, ((size_t)*n + 1) * sizeof **list);
	(*list)[(*n)++] = ut_strdup(path);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	bool slash = n > 0 && dir[n - 1] == '/';
	return ut_format("%s%s%s", dir, slash ? "" : "/", name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Searches the folder DIR (whose stat is ST) for tests. */
static int walk(const char *dir, const struct stat *st, const Ancestor *up,
                char ***list, int *n)
{
	for (const Ancestor *a = up; a; a = a->up)
		if (a->dev == st->st_dev && a->ino == st->st_ino)
			return 0; /* a link back up: already being searched */
	Ancestor self = { st->st_dev, st->st_ino, up };

	DIR *d = opendir(dir);
	if (!d) {
		uir_eprintf(stderr, "uir test: cannot read folder %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			add(&names, &count, e->d_name);
	closedir(d);
	if (count)
		qsort(names, (size_t)count, sizeof *names, by_name);

	int rc = 0;
	for (int i = 0; i < count; i++) {
		char *path = join(dir, names[i]);
		struct stat cst;
		if (stat(path, &cst) != 0) {
			if (is_uir_name(names[i]))
				uir_eprintf(stderr, "uir test: skipping %s: %s\n", path, strerror(errno));
		} else if (S_ISDIR(cst.st_mode)) {
			if (walk(path, &cst, &self, list, n) != 0)
				rc = -1;
		} else if (S_ISREG(cst.st_mode) && is_uir_name(names[i])) {
			add(list, n, path);
		} else if (is_uir_name(names[i])) {
			uir_eprintf(stderr, "uir test: skipping %s: it is %s, not a regular file\n", path,
			            uir_not_regular(&cst));
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

int ut_collect(const char *path, char ***list, int *n)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			uir_eprintf(stderr, "uir test: no such file or folder: %s\n", path);
		else
			uir_eprintf(stderr, "uir test: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return walk(path, &st, NULL, list, n);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (S_ISREG(st.st_mode) && is_uir_name(base))
		add(list, n, path);
	else if (!S_ISREG(st.st_mode)) /* a FIFO would block the children that open it */
		uir_eprintf(stderr, "uir test: ignoring %s: it is %s, not a regular file\n", path,
		            uir_not_regular(&st));
	else
		uir_eprintf(stderr, "uir test: ignoring %s: not a .uir file\n", path);
	return 0;
}

int ut_sort_unique(char **list, int n)
{
	if (n == 0)
		return 0;
	qsort(list, (size_t)n, sizeof *list, by_name);
	int k = 1;
	for (int i = 1; i < n; i++) {
		if (strcmp(list[i], list[k - 1]) == 0)
			free(list[i]);
		else
			list[k++] = list[i];
	}
	return k;
}
