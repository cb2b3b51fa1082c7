/* messages.h - the texts of the errors a program meets when it runs (docs/errors.md: E0601,
 * out of memory, E0203 for a file INIT that does not read), each written once, in
 * messages.c, for every back end: the interpreter and the LLVM back end print them; the C
 * and CUDA renderings and the objects of `uir compile` print them from templates made here,
 * with the numbers filled in when the program runs.
 *
 * A template is a message with the placeholders MSG_A and MSG_B (the bytes 1 and 2) where
 * its first and second numbers go. diag_text() keeps them (util/diag.c) and
 * msg_printf_format() turns them into printf conversions. User text put into a template
 * (a path) must be escaped first (diag_shown()), so that no byte of it reads as one.
 */
#ifndef UIR_MESSAGES_H
#define UIR_MESSAGES_H

#include "../uir_internal.h"

#define MSG_A "\x01"
#define MSG_B "\x02"

enum { MSG_MAX = 1024 }; /* the size of every OUT below; a longer text is cut */

/* How E0601 names the access of load E ("load of", "load.4 of") or of store or atomic S
 * ("store to", "store.4 to", "atomic.add on"); in A when it is not a constant. */
const char *msg_load_what(Arena *a, const Expr *e);
const char *msg_store_what(Arena *a, const Stmt *s);

/* E0601 of fault site S, with its numbers as text. An access: its first offset A and last
 * offset B, "load of a[9] is out of bounds: a has 8 elements", "store.4 to a[6..9] is out
 * of bounds: a has 8 elements" (B unused for one element). An overflow check (S->ovf): the
 * loop bound A and the largest offset B, "the offset of a would overflow: with this loop
 * bound (N) its largest offset is B, beyond 2^31-1". */
void msg_fault(char *out, const FaultSite *s, const char *a, const char *b);
/* The same for the number A: the last offset A + width - 1, or the largest offset
 * overflow_top(S->ovf, A). */
void msg_fault_at(char *out, const FaultSite *s, int64_t a);

/* The line (newline included) for memory that could not be had when the program runs:
 * "PATH: error: out of memory for KIND NAME (BYTES bytes)", KIND "alloc" or "buffer". */
void msg_out_of_memory(char *out, const char *path, const char *kind, const char *name, const char *bytes);
void msg_out_of_memory_for(char *out, const char *path, const char *kind, const Mem *m);

/* E0203 for the file INIT of PATH that does not read, for the reason WHY: "PATH: WHY". */
void msg_file_init(char *out, const char *path, const char *why);

/* TEMPLATE as a printf format: '%' doubled, MSG_A and MSG_B replaced by CONV_A and CONV_B
 * ("%lld", "%s"). Caller frees. */
char *msg_printf_format(const char *tmpl, const char *conv_a, const char *conv_b);

#endif
