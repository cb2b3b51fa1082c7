/* types.c - types of every expression and literal, and the declarations' sizes and INITs
 * (docs/language.md sections 2, 3 and 4; errors E0201, E0202, E0203).
 *
 * Literal typing: an untyped literal, or an expression made only of untyped literals
 * (docs/language.md 2.6.2), takes its type from its context: the op's other operands, the stored
 * memory's element type, i32 for offsets, bounds and lane indices, else i32 / f32.
 */
#include "../uir_internal.h"
#include "../../runtime/uir_npy.h"
#include "../../runtime/uir_init.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[UIR_NTYPES] = {
	"bool", "i8", "u8", "i32", "u32", "i64", "u64", "f32", "f64"
};
static const int type_sizes[UIR_NTYPES] = { 1, 1, 1, 4, 4, 8, 8, 4, 8 };
static const char *const npy_descr[UIR_NTYPES] = {
	"|b1", "|i1", "|u1", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"
};

const char *uir_type_name(UirType t) { return t < UIR_NTYPES ? type_names[t] : "?"; }
int uir_type_size(UirType t) { return t < UIR_NTYPES ? type_sizes[t] : 0; }
const char *uir_type_npy_descr(UirType t) { return t < UIR_NTYPES ? npy_descr[t] : "?"; }
bool type_is_int(UirType t) { return t >= UIR_I8 && t <= UIR_U64; }
bool type_is_signed(UirType t) { return t == UIR_I8 || t == UIR_I32 || t == UIR_I64; }
bool type_is_float(UirType t) { return t == UIR_F32 || t == UIR_F64; }
int type_bits(UirType t) { return 8 * uir_type_size(t); }

int type_lookup(const char *name, size_t len)
{
	for (int i = 0; i < UIR_NTYPES; i++)
		if (strlen(type_names[i]) == len && !memcmp(type_names[i], name, len))
			return i;
	return -1;
}

/* "f32" or "<4 x f32>" for messages */
static const char *tyname(UirProgram *p, UirType t, int lanes)
{
	if (t >= UIR_NTYPES)
		return "no value";
	if (lanes <= 1)
		return type_names[t];
	return fmt_str(&p->arena, "a %d-lane %s vector", lanes, type_names[t]);
}

/* ---- literals ---- */

/* An integer literal's text as sign and magnitude; false when the magnitude needs more
 * than 64 bits. */
static bool int_text(const char *s, bool *neg, bool *hex, uint64_t *mag)
{
	*neg = *s == '-';
	if (*neg)
		s++;
	*hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (*hex)
		s += 2;
	uint64_t v = 0;
	for (; *s; s++) {
		unsigned d = *hex ? (unsigned)(*s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10) : (unsigned)(*s - '0');
		unsigned base = *hex ? 16 : 10;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*mag = v;
	return true;
}

/* The bit pattern of an integer of type T from sign and magnitude; false if it does not
 * fit (hex literals may give the whole bit pattern of their type). */
static bool int_fit(UirType t, bool neg, bool hex, uint64_t mag, Scalar *out)
{
	int bits = type_bits(t);
	uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	if (type_is_signed(t)) {
		uint64_t smax = umax >> 1;
		int64_t v;
		if (neg) {
			if (mag > smax + 1)
				return false;
			v = mag == smax + 1 ? (bits == 64 ? INT64_MIN : -(int64_t)mag) : -(int64_t)mag;
		} else if (hex && mag <= umax) {
			/* bit pattern: sign-extend */
			uint64_t m = mag;
			if (bits < 64 && (m >> (bits - 1)) & 1)
				m |= ~umax;
			memcpy(&v, &m, sizeof v);
		} else {
			if (mag > smax)
				return false;
			v = (int64_t)mag;
		}
		out->i = v;
		return true;
	}
	if ((neg && mag != 0) || mag > umax)
		return false;
	out->u = mag;
	return true;
}

/* Converts the literal E to type TY (E0203 when it cannot). */
bool literal_value(UirProgram *p, Expr *e, UirType ty, Scalar *out)
{
	memset(out, 0, sizeof *out);
	const char *s = e->text;
	if (ty == UIR_BOOL) {
		if (!e->lit_bool) {
			diag_later(p, e->loc, "E0203", NULL, "'%s' cannot be a bool: write true or false", s);
			return false;
		}
		out->u = s[0] == 't';
		return true;
	}
	if (e->lit_bool) {
		diag_later(p, e->loc, "E0203", NULL, "'%s' is a bool and cannot be %s", s, type_names[ty]);
		return false;
	}
	if (type_is_int(ty)) {
		bool neg, hex;
		uint64_t mag;
		if (e->lit_float) {
			diag_later(p, e->loc, "E0203", NULL, "the float literal '%s' cannot become the integer type %s",
				   s, type_names[ty]);
			return false;
		}
		if (!int_text(s, &neg, &hex, &mag) || !int_fit(ty, neg, hex, mag, out)) {
			diag_later(p, e->loc, "E0203", NULL, "the literal '%s' does not fit in %s", s, type_names[ty]);
			return false;
		}
		return true;
	}
	/* floats */
	if (!e->lit_float) {
		bool neg, hex;
		uint64_t mag;
		if (!int_text(s, &neg, &hex, &mag)) {
			diag_later(p, e->loc, "E0203", NULL, "the literal '%s' is too large", s);
			return false;
		}
		/* one rounding, straight from the integer (no double rounding through f64) */
		if (ty == UIR_F32)
			out->f32 = neg ? -(float)mag : (float)mag;
		else
			out->f64 = neg ? -(double)mag : (double)mag;
		return true;
	}
	bool neg = s[0] == '-';
	const char *t = neg ? s + 1 : s;
	if (!strcmp(t, "inf")) {
		if (ty == UIR_F32)
			out->f32 = neg ? -INFINITY : INFINITY;
		else
			out->f64 = neg ? -(double)INFINITY : (double)INFINITY;
		return true;
	}
	if (!strcmp(t, "nan")) {
		if (ty == UIR_F32)
			out->f32 = NAN;
		else
			out->f64 = (double)NAN;
		return true;
	}
	errno = 0;
	if (ty == UIR_F32) {
		out->f32 = strtof(s, NULL);
		if (isinf(out->f32)) {
			diag_later(p, e->loc, "E0203", NULL, "'%s' is too large for f32 (it rounds to infinity)", s);
			return false;
		}
	} else {
		out->f64 = strtod(s, NULL);
		if (isinf(out->f64)) {
			diag_later(p, e->loc, "E0203", NULL, "'%s' is too large for f64 (it rounds to infinity)", s);
			return false;
		}
	}
	return true;
}

/* ---- expressions ---- */

typedef struct TyCtx {
	UirProgram *p;
	bool ok;
} TyCtx;

static void err(TyCtx *c, Loc at, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void err(TyCtx *c, Loc at, const char *code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_later(c->p, at, code, NULL, "%s", msg);
	c->ok = false;
}

/* Closed: no name and no load anywhere in E, so it is made only of literals (of any type). */
static bool closed(const Expr *e)
{
	if (e->kind == EX_LIT)
		return true;
	if (e->kind != EX_OP || e->op == OP_LOAD)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!closed(e->args[i]))
			return false;
	return true;
}

/* Untyped: made only of untyped literals (docs/language.md 2.6.2). Only the value
 * operands decide it (2.6.3), but a select whose condition loads or names a value is not made of
 * literals at all (2.6.4). */
static bool untyped(const Expr *e)
{
	if (e->kind == EX_LIT)
		return !e->lit_typed && !e->lit_bool;
	if (e->kind != EX_OP || e->op == OP_COUNT)
		return false;
	switch (op_info[e->op].shape) {
	case SH_SAME:
		for (int i = 0; i < e->nargs; i++)
			if (!untyped(e->args[i]))
				return false;
		return e->nargs > 0;
	case SH_SPECIAL:
		if (e->op == OP_SELECT)
			return e->nargs == 3 && closed(e->args[0]) && untyped(e->args[1]) && untyped(e->args[2]);
		if (e->op == OP_LANE)
			return e->nargs == 2 && untyped(e->args[0]);
		if (e->op == OP_SPLAT || e->op == OP_VEC) {
			for (int i = 0; i < e->nargs; i++)
				if (!untyped(e->args[i]))
					return false;
			return e->nargs > 0;
		}
		return false;
	default:
		return false;
	}
}

/* A float literal among the value operands of an untyped E (docs/language.md 2.6.3): the literals
 * of a select's condition and of a lane index do not count. */
static bool any_float_lit(const Expr *e)
{
	if (e->kind == EX_LIT)
		return e->lit_float;
	if (e->kind != EX_OP)
		return false;
	int from = e->op == OP_SELECT ? 1 : 0, to = e->op == OP_LANE ? 1 : e->nargs;
	for (int i = from; i < to; i++)
		if (any_float_lit(e->args[i]))
			return true;
	return false;
}

#define NOTYPE UIR_NTYPES

static bool type_expr(TyCtx *c, Expr *e, UirType want, int want_lanes);

/* Types the operands args[from..] of an op as one type: the first typed operand's, else
 * WANT, else the default. Returns false on an error already reported. */
static bool same_type_args(TyCtx *c, Expr *e, int from, UirType want, int want_lanes)
{
	UirType t = NOTYPE;
	int lanes = 1;
	for (int i = from; i < e->nargs; i++) {
		if (untyped(e->args[i]))
			continue;
		if (!type_expr(c, e->args[i], NOTYPE, 1))
			return false;
		if (t == NOTYPE) {
			t = e->args[i]->ty;
			lanes = e->args[i]->lanes;
		}
	}
	if (t == NOTYPE) {
		if (want != NOTYPE) {
			t = want;
			lanes = want_lanes;
		} else {
			bool fl = false;
			for (int i = from; i < e->nargs; i++)
				fl |= any_float_lit(e->args[i]);
			t = fl ? UIR_F32 : UIR_I32;
		}
		/* the first operand decides the width (an untyped vec or splat is a vector) */
		if (from < e->nargs) {
			if (!type_expr(c, e->args[from], t, lanes))
				return false;
			t = e->args[from]->ty;
			lanes = e->args[from]->lanes;
		}
	}
	for (int i = from; i < e->nargs; i++) {
		Expr *a = e->args[i];
		if (untyped(a) && a->ty == UIR_NTYPES && !type_expr(c, a, t, lanes))
			return false;
		if (a->ty != t || a->lanes != lanes) {
			err(c, a->loc, "E0201", "operands of %s must have one type: %s and %s", e->text,
			    tyname(c->p, t, lanes), tyname(c->p, a->ty, a->lanes));
			return false;
		}
	}
	return true;
}

static bool accepts(unsigned acc, UirType t)
{
	return (type_is_int(t) && (acc & OK_INT)) || (type_is_float(t) && (acc & OK_FLOAT)) ||
	       (t == UIR_BOOL && (acc & OK_BOOL));
}

static bool valid_width(int k) { return k == 2 || k == 4 || k == 8 || k == 16; }

static bool type_op(TyCtx *c, Expr *e, UirType want, int want_lanes)
{
	if (e->op == OP_COUNT) {
		err(c, e->loc, "E0202", "unknown op '%s'", e->text);
		return false;
	}
	const OpInfo *oi = &op_info[e->op];
	int arity = oi->arity;
	if (arity >= 0 && e->nargs != arity) {
		err(c, e->loc, "E0202", "%s takes %d operand%s, found %d", oi->name, arity, arity == 1 ? "" : "s",
		    e->nargs);
		return false;
	}
	switch (e->op) {
	case OP_LOAD: {
		if (e->width != 1 && !valid_width(e->width)) {
			err(c, e->loc, "E0202", "bad vector width in '%s': K must be 2, 4, 8 or 16", e->text);
			return false;
		}
		if (!e->mem) {
			err(c, e->mem_loc, "E0201", "load needs a buffer or alloc; '%s' is a value",
			    e->sym ? e->sym->name : "?");
			return false;
		}
		Expr *off = e->args[0];
		if (!type_expr(c, off, UIR_I32, 1))
			return false;
		if (off->ty != UIR_I32 || off->lanes != 1) {
			err(c, off->loc, "E0201", "an offset must be an i32, found %s", tyname(c->p, off->ty, off->lanes));
			return false;
		}
		e->ty = e->mem->ty;
		e->lanes = e->width;
		return true;
	}
	case OP_CAST:
	case OP_BITCAST: {
		Expr *x = e->args[0];
		UirType w = NOTYPE;
		if (e->op == OP_BITCAST && untyped(x)) {
			/* an untyped operand takes the type of the target's size, same flavour */
			int bits = type_bits(e->to);
			bool fl = any_float_lit(x);
			if (fl)
				w = bits == 32 ? UIR_F32 : bits == 64 ? UIR_F64 : NOTYPE;
			else
				w = bits == 8 ? UIR_I8 : bits == 32 ? UIR_I32 : UIR_I64;
		}
		if (!type_expr(c, x, w, 1))
			return false;
		if (e->op == OP_BITCAST) {
			if (x->ty == UIR_BOOL || e->to == UIR_BOOL) {
				err(c, e->loc, "E0201", "bitcast does not take bool");
				return false;
			}
			if (uir_type_size(x->ty) != uir_type_size(e->to)) {
				err(c, e->loc, "E0201", "bitcast needs equal sizes: %s is %d bytes, %s is %d",
				    type_names[x->ty], uir_type_size(x->ty), type_names[e->to], uir_type_size(e->to));
				return false;
			}
		}
		e->ty = e->to;
		e->lanes = x->lanes;
		return true;
	}
	case OP_SPLAT: {
		if (!valid_width(e->width)) {
			err(c, e->loc, "E0202", "bad vector width in '%s': write splat.K with K 2, 4, 8 or 16", e->text);
			return false;
		}
		Expr *x = e->args[0];
		if (!type_expr(c, x, want, 1))
			return false;
		if (x->lanes != 1 || x->ty == UIR_BOOL) {
			err(c, x->loc, "E0201", "splat takes a scalar number, found %s", tyname(c->p, x->ty, x->lanes));
			return false;
		}
		e->ty = x->ty;
		e->lanes = e->width;
		return true;
	}
	case OP_VEC: {
		if (!valid_width(e->nargs)) {
			err(c, e->loc, "E0202", "vec takes 2, 4, 8 or 16 operands, found %d", e->nargs);
			return false;
		}
		if (!same_type_args(c, e, 0, want, 1))
			return false;
		if (e->args[0]->lanes != 1 || e->args[0]->ty == UIR_BOOL) {
			err(c, e->args[0]->loc, "E0201", "vec takes scalar numbers, found %s",
			    tyname(c->p, e->args[0]->ty, e->args[0]->lanes));
			return false;
		}
		e->ty = e->args[0]->ty;
		e->lanes = e->nargs;
		return true;
	}
	case OP_LANE: {
		if (e->nargs != 2) {
			err(c, e->loc, "E0202", "lane takes 2 operands (a vector and a lane index), found %d", e->nargs);
			return false;
		}
		Expr *v = e->args[0], *i = e->args[1];
		if (!type_expr(c, v, want, 1))
			return false;
		if (v->lanes == 1 || v->ty == UIR_BOOL) {
			err(c, v->loc, "E0201", "lane takes a number vector, found %s", tyname(c->p, v->ty, v->lanes));
			return false;
		}
		if (i->kind != EX_LIT || i->lit_typed || i->lit_float || i->lit_bool) {
			err(c, i->loc, "E0203", "a lane index must be an untyped integer literal");
			return false;
		}
		Scalar s;
		if (!literal_value(c->p, i, UIR_I32, &s)) {
			c->ok = false;
			return false;
		}
		if (s.i < 0 || s.i >= v->lanes) {
			err(c, i->loc, "E0203", "lane index %lld is outside 0..%d", (long long)s.i, v->lanes - 1);
			return false;
		}
		i->ty = UIR_I32;
		i->lanes = 1;
		i->val = s;
		e->ty = v->ty;
		e->lanes = 1;
		return true;
	}
	case OP_SELECT: {
		if (!same_type_args(c, e, 1, want, want_lanes))
			return false;
		Expr *cond = e->args[0];
		int lanes = e->args[1]->lanes;
		if (!type_expr(c, cond, UIR_BOOL, lanes))
			return false;
		if (cond->ty != UIR_BOOL || cond->lanes != lanes) {
			err(c, cond->loc, "E0201", "the condition of select must be %s, found %s",
			    tyname(c->p, UIR_BOOL, lanes), tyname(c->p, cond->ty, cond->lanes));
			return false;
		}
		e->ty = e->args[1]->ty;
		e->lanes = lanes;
		return true;
	}
	default:
		break;
	}
	/* SH_SAME and SH_CMP */
	if (!same_type_args(c, e, 0, oi->shape == SH_SAME ? want : NOTYPE, want_lanes))
		return false;
	UirType t = e->args[0]->ty;
	if (!accepts(oi->accepts, t)) {
		err(c, e->loc, "E0201", "%s does not take %s", oi->name, tyname(c->p, t, e->args[0]->lanes));
		return false;
	}
	e->lanes = e->args[0]->lanes;
	e->ty = oi->shape == SH_CMP ? UIR_BOOL : t;
	return true;
}

/* Types E. WANT is the type the context expects (NOTYPE: none); it decides the type of
 * untyped literals only. Reports errors itself. */
static bool type_expr(TyCtx *c, Expr *e, UirType want, int want_lanes)
{
	switch (e->kind) {
	case EX_LIT: {
		UirType t = e->lit_typed ? e->lit_type : e->lit_bool ? UIR_BOOL
				      : want != NOTYPE ? want
				      : e->lit_float ? UIR_F32 : UIR_I32;
		if (!literal_value(c->p, e, t, &e->val)) {
			c->ok = false;
			return false;
		}
		e->ty = t;
		e->lanes = 1;
		(void)want_lanes;
		return true;
	}
	case EX_NAME: {
		Sym *y = e->sym;
		if (!y)
			return false;
		if (y->kind == SYM_MEM) {
			err(c, e->loc, "E0201", "'%s' is a %s, not a value: read it with load", y->name,
			    y->mem->is_alloc ? "alloc" : "buffer");
			return false;
		}
		if (y->ty >= UIR_NTYPES)
			return false; /* its let failed */
		e->ty = y->ty;
		e->lanes = y->lanes;
		return true;
	}
	case EX_OP: {
		/* the context reaches only an expression of untyped literals (docs/language.md
		 * 2.6.2, 2.6.4) */
		bool lits = untyped(e);
		return type_op(c, e, lits ? want : NOTYPE, lits ? want_lanes : 1);
	}
	}
	unreachable();
}

/* Types E and requires exactly type T with LANES lanes. */
static bool type_as(TyCtx *c, Expr *e, UirType t, int lanes, const char *what)
{
	if (!type_expr(c, e, t, lanes))
		return false;
	if (e->ty != t || e->lanes != lanes) {
		err(c, e->loc, "E0201", "%s must be %s, found %s", what, tyname(c->p, t, lanes),
		    tyname(c->p, e->ty, e->lanes));
		return false;
	}
	return true;
}

/* ---- declarations ---- */

static char *dir_join(UirProgram *p, const char *rel)
{
	if (rel[0] == '/')
		return arena_strndup(&p->arena, rel, strlen(rel));
	const char *slash = strrchr(p->path, '/');
	if (!slash)
		return arena_strndup(&p->arena, rel, strlen(rel));
	return fmt_str(&p->arena, "%.*s/%s", (int)(slash - p->path + 1), p->path, rel);
}

/* A random range literal as a wide integer: -2^64 < v <= 2^64. */
static bool range_int(const Expr *e, bool *neg, uint64_t *mag, bool *two64)
{
	bool hex;
	*two64 = false;
	if (e->lit_float || e->lit_bool)
		return false;
	if (!int_text(e->text, neg, &hex, mag)) {
		/* exactly 2^64 is allowed as HI of a u64 range */
		const char *s = e->text;
		if (!strcmp(s, "18446744073709551616") || !strcmp(s, "0x10000000000000000")) {
			*two64 = true;
			*neg = false;
			*mag = 0;
			return true;
		}
		return false;
	}
	return true;
}

static void type_random(TyCtx *c, Mem *m)
{
	Scalar s;
	Expr *seed = m->seed;
	if (seed->lit_float || seed->lit_bool || !literal_value(c->p, seed, UIR_U64, &s) || s.u > UINT32_MAX) {
		err(c, seed->loc, "E0203", "a random SEED is an integer from 0 to 4294967295, found '%s'", seed->text);
		c->ok = false;
		return;
	}
	seed->val = s;
	if (!m->has_range)
		return;
	if (m->ty == UIR_BOOL) {
		err(c, m->lo->loc, "E0203", "a bool buffer takes random SEED without a range");
		return;
	}
	if (type_is_float(m->ty)) {
		Scalar lo, hi;
		if (!literal_value(c->p, m->lo, UIR_F64, &lo) || !literal_value(c->p, m->hi, UIR_F64, &hi)) {
			c->ok = false;
			return;
		}
		if (!isfinite(lo.f64) || !isfinite(hi.f64) || !isfinite(hi.f64 - lo.f64) || !(lo.f64 < hi.f64)) {
			err(c, m->lo->loc, "E0203", "a random range needs finite LO < HI with HI - LO finite");
			return;
		}
		m->flo = lo.f64;
		m->fhi = hi.f64;
		return;
	}
	/* integers: LO < HI, both within the type, HI may be the maximum + 1 */
	bool ln, hn, l64, h64;
	uint64_t lm, hm;
	if (!range_int(m->lo, &ln, &lm, &l64) || !range_int(m->hi, &hn, &hm, &h64) || l64) {
		err(c, m->lo->loc, "E0203", "a random range of %s needs integer literals", type_names[m->ty]);
		return;
	}
	Scalar lv, hv;
	bool lo_ok = int_fit(m->ty, ln, false, lm, &lv);
	/* HI: within the type, or max + 1 */
	bool hi_ok;
	int bits = type_bits(m->ty);
	uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t hibits;
	if (h64) {
		hi_ok = m->ty == UIR_U64;
		hibits = 0;
	} else if (int_fit(m->ty, hn, false, hm, &hv)) {
		hi_ok = true;
		hibits = hv.u;
	} else if (!hn && hm == (type_is_signed(m->ty) ? (umax >> 1) + 1 : umax + 1) && !(bits == 64 && !type_is_signed(m->ty))) {
		hi_ok = true;
		hibits = hm;
	} else {
		hi_ok = false;
		hibits = 0;
	}
	/* compare LO < HI as wide values */
	bool less;
	if (h64)
		less = true;
	else if (ln != hn)
		less = ln && !(lm == 0 && hm == 0);
	else if (ln)
		less = lm > hm;
	else
		less = lm < hm;
	if (!lo_ok || !hi_ok || !less) {
		err(c, m->lo->loc, "E0203", "a random range of %s needs LO < HI within the type (HI may be its maximum + 1)",
		    type_names[m->ty]);
		return;
	}
	m->rlo = lv.u;
	m->rwidth = hibits - lv.u; /* mod 2^64; 0 means 2^64 */
}

/* A literal of an INIT (fill V, [v0 ...]) as an element of M: an explicit :TYPE must fit
 * that type and be M's type (E0203). */
static bool init_literal(TyCtx *c, Mem *m, Expr *e)
{
	if (e->lit_typed) {
		Scalar v;
		if (!literal_value(c->p, e, e->lit_type, &v))
			return false;
		if (e->lit_type != m->ty) {
			err(c, e->loc, "E0203", "a %s literal in the INIT of %s, a %s buffer", type_names[e->lit_type],
			    m->name, type_names[m->ty]);
			return false;
		}
	}
	e->ty = m->ty;
	e->lanes = 1;
	return literal_value(c->p, e, m->ty, &e->val);
}

static void type_decl(TyCtx *c, Mem *m)
{
	Scalar s;
	Expr *sz = m->size_lit;
	if (sz->lit_float || sz->lit_bool || !literal_value(c->p, sz, UIR_I64, &s) || s.i < 1 || s.i > INT32_MAX) {
		err(c, sz->loc, "E0203", "a size is an integer from 1 to 2147483647, found '%s'", sz->text);
		return;
	}
	m->size = s.i;
	switch (m->init) {
	case INIT_ZEROS:
	case INIT_IOTA:
		break;
	case INIT_FILL:
		if (!init_literal(c, m, m->fill))
			c->ok = false;
		break;
	case INIT_RANDOM:
		type_random(c, m);
		break;
	case INIT_LIST:
		if (m->nlist != m->size) {
			err(c, m->init_loc, "E0203", "the list has %d value%s, but %s has %lld elements", m->nlist,
			    m->nlist == 1 ? "" : "s", m->name, (long long)m->size);
			break;
		}
		for (int i = 0; i < m->nlist; i++) {
			if (!init_literal(c, m, m->list[i]))
				c->ok = false;
		}
		break;
	case INIT_FILE: {
		char *path = dir_join(c->p, m->path);
		char why[256];
		if (uir_npy_check(path, npy_descr[m->ty], m->size, why, sizeof why) != 0) /* the header only */
			err(c, m->init_loc, "E0203", "%s: %s", m->path, why);
		m->path = path;
		break;
	}
	}
}

static void type_stmts(TyCtx *c, Stmt *s)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case ST_BUFFER:
		case ST_ALLOC:
			type_decl(c, s->mem);
			break;
		case ST_LET:
			s->sym->ty = NOTYPE;
			if (type_expr(c, s->value, NOTYPE, 1)) {
				s->sym->ty = s->value->ty;
				s->sym->lanes = s->value->lanes;
			}
			break;
		case ST_STORE:
		case ST_ATOMIC: {
			if (!s->mem) {
				if (s->sym)
					err(c, s->mem_loc, "E0201", "'%s' is a value, not a buffer or alloc", s->sym->name);
				break;
			}
			if (s->kind == ST_STORE && s->width != 1 && !valid_width(s->width)) {
				err(c, s->loc, "E0202", "bad vector width: store.K needs K 2, 4, 8 or 16");
				break;
			}
			if (s->kind == ST_ATOMIC) {
				if (s->width == -1) {
					err(c, s->loc, "E0202", "unknown atomic op: atomic.add, atomic.min or atomic.max");
					break;
				}
				s->width = 1;
				/* min and max of floats commute and associate (NaN if either is NaN, -0 below
				 * +0), so the order of the updates does not change the result; a float sum
				 * depends on it (docs/language.md 4.7) */
				UirType mt = s->mem->ty;
				if (s->aop == AT_ADD && type_is_float(mt)) {
					err(c, s->mem_loc, "E0201",
					    "atomic.add takes integer memory, %s is %s: a float sum depends on the order of "
					    "the updates (atomic.min and atomic.max take floats)",
					    s->mem->name, type_names[mt]);
					break;
				}
				if (!type_is_int(mt) && !type_is_float(mt)) {
					err(c, s->mem_loc, "E0201", "atomic.%s takes %s memory, %s is %s",
					    s->aop == AT_MIN ? "min" : s->aop == AT_MAX ? "max" : "add",
					    s->aop == AT_ADD ? "integer" : "integer or float", s->mem->name, type_names[mt]);
					break;
				}
			}
			type_as(c, s->off, UIR_I32, 1, "an offset");
			type_as(c, s->val, s->mem->ty, s->width, "the stored value");
			break;
		}
		case ST_LOOP:
			if (type_as(c, s->value, UIR_I32, 1, "a loop bound") && s->value->kind == EX_LIT)
				s->bound_lit = s->value->val.i;
			type_stmts(c, s->body);
			break;
		case ST_IF:
			type_as(c, s->cond, UIR_BOOL, 1, "an if condition");
			type_stmts(c, s->then_);
			type_stmts(c, s->else_);
			break;
		}
	}
}

bool types_program(UirProgram *p)
{
	TyCtx c = { p, true };
	type_stmts(&c, p->top);
	int n = diag_flush(p);
	return c.ok && n == 0;
}

/* ---- INIT values ---- */

Scalar scalar_at(const void *data, UirType t, int64_t i)
{
	Scalar v;
	v.u = 0;
	switch (t) {
	case UIR_BOOL: v.u = ((const uint8_t *)data)[i] != 0; break;
	case UIR_I8: v.i = ((const int8_t *)data)[i]; break;
	case UIR_U8: v.u = ((const uint8_t *)data)[i]; break;
	case UIR_I32: v.i = ((const int32_t *)data)[i]; break;
	case UIR_U32: v.u = ((const uint32_t *)data)[i]; break;
	case UIR_I64: v.i = ((const int64_t *)data)[i]; break;
	case UIR_U64: v.u = ((const uint64_t *)data)[i]; break;
	case UIR_F32: v.f32 = ((const float *)data)[i]; break;
	case UIR_F64: v.f64 = ((const double *)data)[i]; break;
	default: unreachable();
	}
	return v;
}

/* V (an integer's low bits in u, or a float) wrapped to type T in register form. */
static Scalar wrap_to(UirType t, Scalar v)
{
	switch (t) {
	case UIR_BOOL: v.u = v.u != 0; break;
	case UIR_I8: v.i = (int8_t)(uint8_t)v.u; break;
	case UIR_U8: v.u = (uint8_t)v.u; break;
	case UIR_I32: v.i = (int32_t)(uint32_t)v.u; break;
	case UIR_U32: v.u = (uint32_t)v.u; break;
	default: break;
	}
	return v;
}

bool init_element(const Mem *m, int64_t i, Scalar *out)
{
	Scalar v;
	v.u = 0;
	switch (m->init) {
	case INIT_ZEROS:
		if (m->ty == UIR_F32)
			v.f32 = 0.0f;
		else if (m->ty == UIR_F64)
			v.f64 = 0.0;
		break;
	case INIT_FILL:
		v = m->fill->val;
		break;
	case INIT_IOTA: /* cast T i for an i32 i */
		if (m->ty == UIR_F32)
			v.f32 = (float)(int32_t)i;
		else if (m->ty == UIR_F64)
			v.f64 = (double)(int32_t)i;
		else
			v.u = (uint64_t)(int64_t)(int32_t)i;
		break;
	case INIT_RANDOM: {
		uint32_t seed = (uint32_t)m->seed->val.u;
		double lo = m->has_range ? m->flo : -1.0, hi = m->has_range ? m->fhi : 1.0;
		if (m->ty == UIR_F32)
			v.f32 = uir_random_f32(seed, (uint64_t)i, lo, hi);
		else if (m->ty == UIR_F64)
			v.f64 = uir_random_f64(seed, (uint64_t)i, lo, hi);
		else if (m->ty == UIR_BOOL)
			v.u = uir_random_bits(seed, (uint64_t)i) & 1;
		else /* integers: the low bits */
			v.u = m->has_range ? uir_random_int(seed, (uint64_t)i, m->rlo, m->rwidth)
					   : uir_random_bits(seed, (uint64_t)i);
		break;
	}
	case INIT_LIST:
		v = m->list[i]->val;
		break;
	case INIT_FILE:
		return false;
	}
	*out = wrap_to(m->ty, v);
	return true;
}
