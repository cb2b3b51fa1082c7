/* eval_mem.c - the interpreter's memory instructions: load, load.K, store, store.K and
 * atomic.OP for every element type, each access checked against the memory's size
 * (docs/language.md 4.8.1: an access outside 0 .. SIZE-1 is the fault E0601).
 *
 * Instruction fields: base and size are the memory's data and element count, a the offset
 * register (an i32, sign-extended), b the stored value's register(s), d the loaded value's,
 * n the K of .K accesses, aux the access's FaultSite for the message.
 */
#include "interp_int.h"
#include "../util/messages.h"
#include "uir_ops.h"

/* The offset of a scalar access, or a fault. The i32 offset is sign-extended, so one
 * unsigned compare rejects negative offsets too. */
static inline int64_t scalar_off(const Insn *in, const Scalar *R, Ctx *c)
{
	int64_t off = R[in->a].i;
	if ((uint64_t)off >= (uint64_t)in->size)
		interp_fault(c, in, off);
	return off;
}

/* The first offset of an access of n elements off .. off+n-1, or a fault. */
static inline int64_t vector_off(const Insn *in, const Scalar *R, Ctx *c)
{
	int64_t off = R[in->a].i;
	if (off < 0 || off > in->size - in->n)
		interp_fault(c, in, off);
	return off;
}

#define DEF_LOAD(T, _) \
	static void s_load_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		int64_t off = scalar_off(in, R, c); \
		PUT_##T(R[in->d], ((const MT_##T *)in->base)[off]); \
	} \
	static void v_load_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		int64_t off = vector_off(in, R, c); \
		const MT_##T *m = (const MT_##T *)in->base + off; \
		for (int l = 0; l < in->n; l++) \
			PUT_##T(R[in->d + l], m[l]); \
	}

#define DEF_STORE(T, _) \
	static void s_store_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		int64_t off = scalar_off(in, R, c); \
		((MT_##T *)in->base)[off] = (MT_##T)GET_##T(R[in->b]); \
	} \
	static void v_store_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		int64_t off = vector_off(in, R, c); \
		MT_##T *m = (MT_##T *)in->base + off; \
		for (int l = 0; l < in->n; l++) \
			m[l] = (MT_##T)GET_##T(R[in->b + l]); \
	}

ALL_TAGS(DEF_LOAD, _)
ALL_TAGS(DEF_STORE, _)

/* atomic.OP: the plain read-modify-write (runs are sequential); floats min and max only. */
#define A_WADD(T, x, v) uir_add_##T(x, v)
#define A_UADD(T, x, v) ((CT_##T)((x) + (v)))
#define A_MIN(T, x, v) ((v) < (x) ? (v) : (x))
#define A_MAX(T, x, v) ((v) > (x) ? (v) : (x))
#define A_FMIN(T, x, v) uir_min_##T(x, v) /* the min op's own definition: NaN, -0 < +0 */
#define A_FMAX(T, x, v) uir_max_##T(x, v)

#define DEF_ATOMIC(T, OP, F) \
	static void atomic_##OP##_##T(const Insn *in, Scalar *R, Ctx *c) \
	{ \
		int64_t off = scalar_off(in, R, c); \
		MT_##T *m = (MT_##T *)in->base + off; \
		CT_##T x = *m, v = GET_##T(R[in->b]); \
		*m = (MT_##T)F(T, x, v); \
	}

#define ATOMIC_LIST(X) \
	SINT_TAGS(X, add, A_WADD) UINT_TAGS(X, add, A_UADD) \
	INT_TAGS(X, min, A_MIN) INT_TAGS(X, max, A_MAX) \
	FLOAT_TAGS(X, min, A_FMIN) FLOAT_TAGS(X, max, A_FMAX)

ATOMIC_LIST(DEF_ATOMIC)

#define ENT_MEM(T, _) [TY_##T] = { { s_load_##T, v_load_##T }, { s_store_##T, v_store_##T } },
static const InsnFn mem_table[UIR_NTYPES][2][2] = { ALL_TAGS(ENT_MEM, _) };

InsnFn mem_pick_load(UirType t, bool vec)
{
	return (unsigned)t < UIR_NTYPES ? mem_table[t][0][vec] : NULL;
}

InsnFn mem_pick_store(UirType t, bool vec)
{
	return (unsigned)t < UIR_NTYPES ? mem_table[t][1][vec] : NULL;
}

#define ENT_ATOMIC_ADD(T, OP, F) [TY_##T] = atomic_add_##T,
#define ENT_ATOMIC_MIN(T, OP, F) [TY_##T] = atomic_min_##T,
#define ENT_ATOMIC_MAX(T, OP, F) [TY_##T] = atomic_max_##T,
static const InsnFn atomic_table[3][UIR_NTYPES] = {
	[AT_ADD] = { INT_TAGS(ENT_ATOMIC_ADD, add, _) },
	[AT_MIN] = { NUM_TAGS(ENT_ATOMIC_MIN, min, _) },
	[AT_MAX] = { NUM_TAGS(ENT_ATOMIC_MAX, max, _) },
};

InsnFn mem_pick_atomic(AtomicOp op, UirType t)
{
	if ((unsigned)op > AT_MAX || (unsigned)t >= UIR_NTYPES)
		return NULL;
	return atomic_table[op][t];
}

_Noreturn void interp_fault(Ctx *c, const Insn *in, int64_t off)
{
	const FaultSite *s = in->aux;
	char msg[MSG_MAX];
	msg_fault_at(msg, s, off);
	diag(c->p, s->loc, "E0601", "%s", msg);
	longjmp(c->fault, 1);
}
