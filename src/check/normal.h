/* normal.h - offsets in normal form (docs/language.md 7.2): c0 + sum of coefficient * term. */
#ifndef UIR_CHECK_NORMAL_H
#define UIR_CHECK_NORMAL_H

#include "../uir_internal.h"

typedef enum { TM_INDEX, TM_DIV, TM_MOD, TM_OPAQUE } TermKind;

/* A term: a loop index, its div or mod by a positive literal, or anything else (opaque). */
typedef struct Term {
	TermKind kind;
	const Sym *index;  /* TM_INDEX, TM_DIV, TM_MOD */
	int64_t d;         /* TM_DIV, TM_MOD: the positive literal */
	const Expr *expr;  /* TM_OPAQUE */
	bool outside;      /* TM_OPAQUE: reached through a let outside the checked code */
	const char *key;   /* identity: equal keys are the same term */
} Term;

typedef struct LinTerm { int64_t coef; Term *t; } LinTerm;

/* c0 + sum v[i].coef * v[i].t, exact in 64 bits (bad: it overflowed). */
typedef struct Norm {
	int64_t c0;
	int n, cap;
	LinTerm *v;
	bool bad;
	bool too_deep;     /* bad because lets nest too deep or the work budget ran out */
} Norm;

/* Offsets inline lets to at most this depth of expression nodes, each let's name and each op
 * counting one: a chain of NORM_MAX_DEPTH / 2 lets of one op each (deeper is E0501, never a
 * stack overflow; docs/language.md 7.9.1). */
#define NORM_MAX_DEPTH 4000

typedef struct NormCtx {
	Arena *a;
	const Stmt *code;  /* the checked code: lets outside it mark their loads `outside` */
	long budget;       /* nodes left to visit: inlined let chains may grow exponentially */
	bool truncated;    /* the last key was cut */
} NormCtx;

/* The normal form of the i32 expression E (terms live in C->a). */
Norm normalize(NormCtx *c, const Expr *e);
/* Same c0 and the same (term, coefficient) pairs. */
bool norm_equal(const Norm *a, const Norm *b);
/* Readable forms for messages: "16*g + t + 3", "div t 16". */
const char *norm_text(Arena *a, const Norm *n);
const char *term_text(Arena *a, const Term *t);

#endif
