/* api.h - what the files of the library (libuir.so, src/api/) share: the lock and the
 * capture of diagnostics into a UirError. */
#ifndef UIR_API_H
#define UIR_API_H

#include "../uir_internal.h"

/* The library's one lock: held by every function that touches a program, so that what is
 * one per process (the loader of the LLVM module in engine.c, a file static anywhere in the
 * core) is used by one thread at a time, and so that a run's fork never copies the library
 * in the middle of another thread's call. */
void api_lock(void);
void api_unlock(void);

/* A stream in memory for the diagnostics of one call (open_memstream). */
typedef struct Capture {
	FILE *f;
	char *buf;
	size_t len;
} Capture;

/* Opens C's stream; exits 70 (internal error) when there is no memory for it. */
void capture_open(Capture *c);

/* Closes C and moves its text into E->text (E cleared before the call), with STATUS, the
 * first error of P (may be NULL; else its first_code, first_loc, first_msg) and, when that
 * has no code, the first line of the text as E->message. */
void capture_close(Capture *c, UirError *e, int status, const UirProgram *p);

/* Fills E's first error from CODE, AT and MSG, or from the first line of E->text when CODE
 * is empty. */
void api_set_first(UirError *e, const char *code, Loc at, const char *msg);

/* A fresh copy of P, loaded from its text (docs: every check, rendering and run of the
 * library is of a copy); its diagnostics on ERR. NULL when it does not load (after them). */
UirProgram *api_copy(const UirProgram *p, FILE *err);

#endif
