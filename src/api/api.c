/* api.c - libuir.so: loading, checking and rendering programs, and their footprint
 * pictures, with the diagnostics in a UirError (include/uir/uir.h); the runs are job.c. Each
 * call loads a fresh copy of the program's text and does what the `uir` command of the same
 * name does, through the same functions: uir_check(), uir_check_footprint(),
 * render_program(). */
#include "api.h"
#include "../check/footprint.h"
#include "../render/render_int.h"
#include "../util/escape.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void api_lock(void)
{
	pthread_mutex_lock(&lock);
}

void api_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void uir_error_clear(UirError *e)
{
	if (!e)
		return;
	free(e->text);
	memset(e, 0, sizeof *e);
}

void uir_text_free(char *text)
{
	free(text);
}

void capture_open(Capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
}

void api_set_first(UirError *e, const char *code, Loc at, const char *msg)
{
	if (code && *code) {
		snprintf(e->code, sizeof e->code, "%s", code);
		e->line = at.line > 0 ? at.line : 0;
		e->col = at.line > 0 ? at.col : 0;
		snprintf(e->message, sizeof e->message, "%s", msg);
		return;
	}
	e->code[0] = 0;
	e->line = e->col = 0;
	const char *t = e->text ? e->text : "";
	size_t n = strcspn(t, "\n");
	if (n >= sizeof e->message)
		n = sizeof e->message - 1;
	memcpy(e->message, t, n);
	e->message[n] = 0;
}

void capture_close(Capture *c, UirError *e, int status, const UirProgram *p)
{
	if (fclose(c->f) != 0 || !c->buf)
		uir_internal_error(__FILE__, __LINE__, "out of memory");
	e->status = status;
	if (c->len) {
		e->text = c->buf;
	} else {
		free(c->buf);
		e->text = NULL;
	}
	if (p)
		api_set_first(e, p->first_code, p->first_loc, p->first_msg);
	else
		api_set_first(e, "", (Loc){ 0, 0 }, "");
}

UirProgram *api_copy(const UirProgram *p, FILE *err)
{
	return uir_load_text(p->path, p->src, p->srclen, err);
}

/* The first error of a program that does not load, into the UirError CTX. */
static void load_failed(const UirProgram *p, void *ctx)
{
	UirError *e = ctx;
	api_set_first(e, p->first_code, p->first_loc, p->first_msg);
}

/* uir_open() (TEXT NULL) and uir_open_text(). */
static UirProgram *open_program(const char *path, const char *text, size_t len, UirError *e)
{
	uir_error_clear(e);
	api_lock();
	Capture c;
	capture_open(&c);
	UirError first = { 0 };
	UirProgram *p = program_load(path, text, len, c.f, load_failed, &first);
	capture_close(&c, e, p ? UIR_EXIT_OK : UIR_EXIT_ERROR, NULL);
	if (!p && first.code[0]) {
		memcpy(e->code, first.code, sizeof e->code);
		e->line = first.line;
		e->col = first.col;
		memcpy(e->message, first.message, sizeof e->message);
	}
	if (p)
		p->err = stderr; /* the stream is gone; nothing prints on it from now on */
	api_unlock();
	return p;
}

UirProgram *uir_open(const char *path, UirError *e)
{
	return open_program(path, NULL, 0, e);
}

UirProgram *uir_open_text(const char *name, const char *text, size_t len, UirError *e)
{
	return open_program(name, text ? text : "", text ? len : 0, e);
}

void uir_close(UirProgram *p)
{
	api_lock();
	uir_free(p);
	api_unlock();
}

int uir_verify(const UirProgram *p, unsigned flags, UirError *e)
{
	uir_error_clear(e);
	api_lock();
	Capture c;
	capture_open(&c);
	UirProgram *q = api_copy(p, c.f);
	int status = !q || uir_check(q, flags, c.f) ? UIR_EXIT_ERROR : UIR_EXIT_OK;
	capture_close(&c, e, status, q);
	uir_free(q);
	api_unlock();
	return status;
}

int uir_footprint_text(const UirProgram *p, unsigned flags, const char *path, char **out, UirError *e)
{
	uir_error_clear(e);
	*out = NULL;
	api_lock();
	Capture c;
	capture_open(&c);
	UirProgram *q = api_copy(p, c.f);
	int verdict = !q || uir_check_footprint(q, flags, c.f) ? UIR_EXIT_ERROR : UIR_EXIT_OK;
	size_t len = 0;
	char *svg = q ? uir_footprint_svg(q, &len) : NULL;
	char failed[1024] = "";
	const char *why = NULL;
	/* the lines `uir check --footprint PATH` adds (src/cli/check.c) */
	if (!svg && path && q)
		uir_eprintf(c.f, "uir check: no footprint written to %s: the check stops before the race rules\n", path);
	else if (!svg && path)
		uir_eprintf(c.f, "uir check: no footprint written to %s: the program does not load\n", path);
	else if (svg && path && fp_write_file(path, svg, len, &why) != 0) {
		uir_eprintf(c.f, "uir check: cannot write %s: %s\n", path, why);
		snprintf(failed, sizeof failed, "uir check: cannot write %s: %s", path, why);
		free(svg);
		svg = NULL;
	}
	capture_close(&c, e, verdict, q);
	if (!svg && !failed[0] && e->status == UIR_EXIT_OK) /* not expected: the race stage ends a valid check */
		snprintf(failed, sizeof failed, "uir check: no footprint: the race check did not run");
	if (failed[0]) {
		e->status = UIR_EXIT_ERROR;
		e->code[0] = 0;
		e->line = e->col = 0;
		for (size_t i = 0; failed[i]; i++) /* control bytes as '?', as every message */
			if ((unsigned char)failed[i] < 0x20 || failed[i] == 0x7f)
				failed[i] = '?';
		snprintf(e->message, sizeof e->message, "%s", failed);
	}
	uir_free(q);
	api_unlock();
	*out = svg;
	return svg ? UIR_EXIT_OK : UIR_EXIT_ERROR;
}

int uir_render_text(const UirProgram *p, bool cuda, bool main, char **out, UirError *e)
{
	uir_error_clear(e);
	*out = NULL;
	api_lock();
	Capture c;
	capture_open(&c);
	UirProgram *q = api_copy(p, c.f);
	RenderOptions opt = { .main = main };
	Str text = { 0 };
	char why[512] = "";
	int status = q ? render_program(q, cuda, &opt, &text, why, sizeof why) : UIR_EXIT_ERROR;
	capture_close(&c, e, status, q);
	if (status == UIR_EXIT_NOT_KERNEL)
		snprintf(e->message, sizeof e->message, "%s", why);
	if (status == UIR_EXIT_OK) {
		*out = xmalloc(text.n + 1);
		memcpy(*out, str_cstr(&text), text.n);
		(*out)[text.n] = 0;
	}
	str_free(&text);
	uir_free(q);
	api_unlock();
	return status;
}
