/* main_gen.c - the parts of a `--main` that set up buffers exactly as `run` does (docs/language.md
 * 3.2: zeros, fill, iota, random with the generator of runtime/uir_init.h, a list, a .npy file
 * read by runtime/uir_npy.h) and print them in `run`'s format (runtime/uir_print.h).
 * Shared by render (C) and render-cuda (host code); helpers used here are host helpers.
 */
#include "render_int.h"
#include <string.h>

static void out_line(Str *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line at indentation 1. */
static void out_line(Str *o, const char *fmt, ...)
{
	va_list ap;
	str_put(o, "\t");
	va_start(ap, fmt);
	str_vprintf(o, fmt, ap);
	va_end(ap);
	str_put(o, "\n");
}

/* A C string literal of S. */
static const char *quoted(Emitter *E, const char *s)
{
	Str b = { 0 };
	str_put(&b, "\"");
	str_put_cstring(&b, s, strlen(s));
	str_put(&b, "\"");
	const char *r = arena_strndup(E->a, str_cstr(&b), b.n);
	str_free(&b);
	return r;
}

/* The value of `cast T i` for the i32 loop variable uir_i (iota). */
static const char *iota_value(UirType t)
{
	switch (t) {
	case UIR_BOOL: return "uir_i != 0";
	case UIR_I8: return "(int8_t)uir_i";
	case UIR_U8: return "(uint8_t)uir_i";
	case UIR_I32: return "uir_i";
	case UIR_U32: return "(uint32_t)uir_i";
	case UIR_I64: return "uir_i";
	case UIR_U64: return "(uint64_t)uir_i";
	case UIR_F32: return "(float)uir_i";
	case UIR_F64: return "(double)uir_i";
	default: unreachable();
	}
}

static const char *f64_text(Emitter *E, double v)
{
	Scalar s;
	s.f64 = v;
	return literal_text(E, UIR_F64, s);
}

/* The value of element uir_i of `random SEED [LO HI]`. */
static const char *random_value(Emitter *E, const Mem *m)
{
	uint32_t seed = (uint32_t)m->seed->val.u;
	switch (m->ty) {
	case UIR_F32:
	case UIR_F64: {
		bool f = m->ty == UIR_F32;
		use_helper(E, f ? "uir_random_f32" : "uir_random_f64");
		return fmt_str(E->a, "uir_random_%s(%luu, (uint64_t)uir_i, %s, %s)", f ? "f32" : "f64", (unsigned long)seed,
			       f64_text(E, m->has_range ? m->flo : -1.0), f64_text(E, m->has_range ? m->fhi : 1.0));
	}
	case UIR_BOOL:
		use_helper(E, "uir_random_bits");
		return fmt_str(E->a, "(uint8_t)(uir_random_bits(%luu, (uint64_t)uir_i) & 1)", (unsigned long)seed);
	default:
		if (m->has_range) {
			use_helper(E, "uir_random_int");
			return fmt_str(E->a, "(%s)uir_random_int(%luu, (uint64_t)uir_i, UINT64_C(%llu), UINT64_C(%llu))",
				       ctype(m->ty), (unsigned long)seed, (unsigned long long)m->rlo,
				       (unsigned long long)m->rwidth);
		}
		use_helper(E, "uir_random_bits");
		return fmt_str(E->a, "(%s)uir_random_bits(%luu, (uint64_t)uir_i)", ctype(m->ty), (unsigned long)seed);
	}
}

/* The value of element uir_i of `random SEED [LO HI]` drawn from the timing main's seed
 * uir_seed (run --seed: runtime/uir_init.h, uir_seeded_bits with the keys uir_k0, uir_k1). */
static const char *seeded_value(Emitter *E, const Mem *m)
{
	const char *z = "uir_seeded_bits(uir_k0, uir_k1, (uint64_t)uir_i)";
	switch (m->ty) {
	case UIR_F32:
	case UIR_F64: {
		bool f = m->ty == UIR_F32;
		use_helper(E, f ? "uir_bits_f32" : "uir_bits_f64");
		return fmt_str(E->a, "uir_bits_%s(%s, %s, %s)", f ? "f32" : "f64", z,
			       f64_text(E, m->has_range ? m->flo : -1.0), f64_text(E, m->has_range ? m->fhi : 1.0));
	}
	case UIR_BOOL:
		return fmt_str(E->a, "(uint8_t)(%s & 1)", z);
	default:
		if (m->has_range) {
			use_helper(E, "uir_bits_int");
			return fmt_str(E->a, "(%s)uir_bits_int(%s, UINT64_C(%llu), UINT64_C(%llu))", ctype(m->ty), z,
				       (unsigned long long)m->rlo, (unsigned long long)m->rwidth);
		}
		return fmt_str(E->a, "(%s)%s", ctype(m->ty), z);
	}
}

void main_seed_buffer(Emitter *E, Str *o, const Mem *m, const char *name)
{
	if (m->init != INIT_RANDOM)
		return;
	bool host = E->host;
	E->host = true;
	use_helper(E, "uir_seeded_key");
	use_helper(E, "uir_seeded_bits");
	out_line(o, "{ /* %s: random, drawn from the seed */", name);
	out_line(o, "	uint64_t uir_k0 = uir_seeded_key(uir_seed, %d, 0), uir_k1 = uir_seeded_key(uir_seed, %d, 1);",
		 m->index, m->index);
	out_line(o, "	for (int32_t uir_i = 0; uir_i < %lld; uir_i++)", (long long)m->size);
	out_line(o, "		%s[uir_i] = %s;", name, seeded_value(E, m));
	out_line(o, "}");
	E->host = host;
}

void main_compare_buffer(Emitter *E, Str *o, const Mem *m, const char *got, const char *want, const char *indent)
{
	bool host = E->host;
	E->host = true;
	use_helper(E, "uir_count_differences");
	bool flt = type_is_float(m->ty);
	str_printf(o, "%sif ((uir_nd = uir_count_differences(%s, %s, %lld, %d, %d, &uir_e)) != 0) {\n", indent, got,
		   want, (long long)m->size, uir_type_size(m->ty), flt ? 1 : 0);
	str_printf(o, "%s\tchar uir_w[48], uir_g[48];\n", indent);
	switch (m->ty) {
	case UIR_F32:
	case UIR_F64: {
		const char *f = m->ty == UIR_F32 ? "uir_format_f32" : "uir_format_f64";
		use_helper(E, f);
		str_printf(o, "%s\t%s(uir_w, sizeof uir_w, %s[uir_e]);\n", indent, f, want);
		str_printf(o, "%s\t%s(uir_g, sizeof uir_g, %s[uir_e]);\n", indent, f, got);
		break;
	}
	case UIR_BOOL:
		str_printf(o, "%s\tsnprintf(uir_w, sizeof uir_w, \"%%d\", %s[uir_e] != 0);\n", indent, want);
		str_printf(o, "%s\tsnprintf(uir_g, sizeof uir_g, \"%%d\", %s[uir_e] != 0);\n", indent, got);
		break;
	case UIR_U8:
	case UIR_U32:
	case UIR_U64:
		use_helper(E, "uir_format_u64");
		str_printf(o, "%s\tuir_format_u64(uir_w, (uint64_t)%s[uir_e]);\n", indent, want);
		str_printf(o, "%s\tuir_format_u64(uir_g, (uint64_t)%s[uir_e]);\n", indent, got);
		break;
	default:
		use_helper(E, "uir_format_i64");
		str_printf(o, "%s\tuir_format_i64(uir_w, (int64_t)%s[uir_e]);\n", indent, want);
		str_printf(o, "%s\tuir_format_i64(uir_g, (int64_t)%s[uir_e]);\n", indent, got);
		break;
	}
	str_printf(o, "%s\tuir_time_differs(uir_ref, uir_round, %s, uir_e, uir_w, uir_g, uir_nd);\n", indent,
		   quoted(E, m->name));
	str_printf(o, "%s}\n", indent);
	E->host = host;
}

static void init_list(Emitter *E, Str *o, const Mem *m, const char *name)
{
	const char *init = fmt_str(E->a, "uir_init_%s", name);
	out_line(o, "static const %s %s[%lld] = {", ctype(m->ty), init, (long long)m->size);
	Str row = { 0 };
	for (int i = 0; i < m->nlist; i++) {
		const char *v = literal_text(E, m->ty, m->list[i]->val);
		if (row.n + strlen(v) > 80) {
			out_line(o, "\t%s", str_cstr(&row));
			str_free(&row);
		}
		str_printf(&row, "%s%s", v, i + 1 < m->nlist ? ", " : "");
	}
	if (row.n)
		out_line(o, "\t%s", str_cstr(&row));
	str_free(&row);
	out_line(o, "};");
	out_line(o, "memcpy(%s, %s, sizeof %s);", name, init, init);
}

static void init_file(Emitter *E, Str *o, const Mem *m, const char *name)
{
	use_helper(E, "uir_npy_read");
	char msg[MSG_MAX];
	const char *head, *mid, *tail;
	msg_file_init(msg, diag_shown(E->a, m->path), MSG_A);
	diag_template(E, m->init_loc, "E0203", msg, &head, &mid, &tail);
	out_line(o, "if (uir_npy_read(%s, \"%s\", %lld, %s, uir_why, sizeof uir_why) != 0) {", quoted(E, m->path),
		 uir_type_npy_descr(m->ty), (long long)m->size, name);
	out_line(o, "\tfprintf(stderr, \"%%s%%s%%s\", %s, uir_why,", quoted(E, head));
	out_line(o, "\t\t%s);", quoted(E, tail));
	out_line(o, "\treturn 1;");
	out_line(o, "}");
}

void main_buffer_alloc(Emitter *E, Str *o)
{
	str_put(o, "\n/* Out of memory for a buffer: the message of `run`, exit 1. */\n");
	str_put(o, "static void *uir_buffer(int64_t n, size_t size, const char *name)\n{\n");
	str_put(o, "\tvoid *p = calloc((size_t)n, size);\n\tif (!p) {\n");
	str_printf(o, "\t\tfprintf(stderr, %s, name, (long long)n * (long long)size);\n", oom_format(E, "buffer"));
	str_put(o, "\t\texit(1);\n\t}\n\treturn p;\n}\n");
}

void main_init_buffer(Emitter *E, Str *o, const Mem *m, const char *name)
{
	bool host = E->host;
	E->host = true;
	switch (m->init) {
	case INIT_ZEROS:
		break;
	case INIT_FILL:
		out_line(o, "for (int32_t uir_i = 0; uir_i < %lld; uir_i++)", (long long)m->size);
		out_line(o, "\t%s[uir_i] = %s;", name, literal_text(E, m->ty, m->fill->val));
		break;
	case INIT_IOTA:
		out_line(o, "for (int32_t uir_i = 0; uir_i < %lld; uir_i++)", (long long)m->size);
		out_line(o, "\t%s[uir_i] = %s;", name, iota_value(m->ty));
		break;
	case INIT_RANDOM:
		out_line(o, "for (int32_t uir_i = 0; uir_i < %lld; uir_i++)", (long long)m->size);
		out_line(o, "\t%s[uir_i] = %s;", name, random_value(E, m));
		break;
	case INIT_LIST:
		init_list(E, o, m, name);
		break;
	case INIT_FILE:
		init_file(E, o, m, name);
		break;
	}
	E->host = host;
}

void main_print_buffer(Emitter *E, Str *o, const Mem *m, const char *name)
{
	bool host = E->host;
	E->host = true;
	const char *f = fmt_str(E->a, "uir_print_%s", m->ty == UIR_BOOL ? "bool" : uir_type_name(m->ty));
	use_helper(E, f);
	out_line(o, "%s(stdout, %s, %s, %lld);", f, quoted(E, m->name), name, (long long)m->size);
	E->host = host;
}
