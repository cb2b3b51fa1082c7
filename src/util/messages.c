/* messages.c - the texts of the errors a program meets when it runs (messages.h). */
#include "messages.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *msg_load_what(Arena *a, const Expr *e)
{
	return e->width > 1 ? fmt_str(a, "load.%d of", e->width) : "load of";
}

const char *msg_store_what(Arena *a, const Stmt *s)
{
	if (s->kind == ST_ATOMIC)
		return s->aop == AT_ADD ? "atomic.add on" : s->aop == AT_MIN ? "atomic.min on" : "atomic.max on";
	return s->width > 1 ? fmt_str(a, "store.%d to", s->width) : "store to";
}

void msg_fault(char *out, const FaultSite *s, const char *a, const char *b)
{
	const char *name = s->mem->name;
	long long size = (long long)s->mem->size;
	const char *es = size == 1 ? "" : "s";
	if (s->ovf)
		snprintf(out, MSG_MAX, "the offset of %s would overflow: with this loop bound (%s) its largest offset is %s, "
			 "beyond 2^31-1", name, a, b);
	else if (s->width > 1)
		snprintf(out, MSG_MAX, "%s %s[%s..%s] is out of bounds: %s has %lld element%s", s->what, name, a, b, name,
			 size, es);
	else
		snprintf(out, MSG_MAX, "%s %s[%s] is out of bounds: %s has %lld element%s", s->what, name, a, name, size,
			 es);
}

void msg_fault_at(char *out, const FaultSite *s, int64_t a)
{
	char as[24], bs[24];
	snprintf(as, sizeof as, "%lld", (long long)a);
	snprintf(bs, sizeof bs, "%lld", (long long)(s->ovf ? overflow_top(s->ovf, a) : a + s->width - 1));
	msg_fault(out, s, as, bs);
}

void msg_out_of_memory(char *out, const char *path, const char *kind, const char *name, const char *bytes)
{
	snprintf(out, MSG_MAX, "%s: error: out of memory for %s %s (%s bytes)\n", path, kind, name, bytes);
}

void msg_out_of_memory_for(char *out, const char *path, const char *kind, const Mem *m)
{
	char bytes[24];
	snprintf(bytes, sizeof bytes, "%lld", (long long)m->size * uir_type_size(m->ty));
	msg_out_of_memory(out, path, kind, m->name, bytes);
}

void msg_file_init(char *out, const char *path, const char *why)
{
	snprintf(out, MSG_MAX, "%s: %s", path, why);
}

char *msg_printf_format(const char *tmpl, const char *conv_a, const char *conv_b)
{
	size_t la = strlen(conv_a), lb = strlen(conv_b), n = 1;
	for (const char *c = tmpl; *c; c++)
		n += *c == '%' ? 2 : *c == 1 ? la : *c == 2 ? lb : 1;
	char *fmt = xmalloc(n), *o = fmt;
	for (const char *c = tmpl; *c; c++) {
		if (*c == '%') {
			*o++ = '%';
			*o++ = '%';
		} else if (*c == 1 || *c == 2) {
			memcpy(o, *c == 1 ? conv_a : conv_b, *c == 1 ? la : lb);
			o += *c == 1 ? la : lb;
		} else {
			*o++ = *c;
		}
	}
	*o = 0;
	return fmt;
}
