/* escape.h - printing text that comes from the user (paths, names, strings, argv) in a
 * message without letting its control bytes act on the terminal (src/util/diag.c).
 *
 * Every control byte but a tab (0x00-0x1F, 0x7F) prints as '?', as in the source line that
 * diagnostics echo; other bytes (UTF-8 included) print as they are. An ESC sequence in a
 * `file "PATH"` or a test's name cannot clear the screen or hide a message.
 */
#ifndef UIR_ESCAPE_H
#define UIR_ESCAPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the N bytes at S to F, control bytes as '?'. */
void uir_put_escaped(FILE *f, const char *s, size_t n);
/* Formats as fprintf does and writes the result with uir_put_escaped(), except a line break
 * that ends it (so a message's own "\n" stays; one inside a user's text is '?'). */
void uir_eprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void uir_veprintf(FILE *f, const char *fmt, va_list ap);

#endif
