/* files.h - what kind of file a path names, for messages. Header-only: the runtime's .npy
 * reader (runtime/uir_npy.h) uses it too, in programs that link nothing else. */
#ifndef UIR_FILES_H
#define UIR_FILES_H

#include <stddef.h>
#include <sys/stat.h>

/* "a FIFO", "a socket", "a character device", "a block device", "a directory", or NULL for
 * a regular file: what ST (from stat) is when it is not a file uir reads. uir reads only
 * regular files: opening a FIFO waits for a writer, possibly forever, and a device's bytes
 * are not a program (docs/commands.md, "Input files"). */
static inline const char *uir_not_regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	return "an unknown kind of file";
}

/* uir_not_regular() of what PATH names; NULL also when it cannot be stat'ed (opening it
 * then says why). */
static inline const char *uir_path_not_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? uir_not_regular(&st) : NULL;
}

#endif
