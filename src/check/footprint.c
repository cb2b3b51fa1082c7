/* footprint.c - the records of `uir check --footprint` and their SVG picture (footprint.h,
 * docs/commands.md "The footprint picture").
 *
 * races.c feeds the records from its exact analysis; this file keeps them (per checked
 * code, per memory, per element: the first two iterations that wrote it and the first two
 * that read it) and draws them: each memory a grid of its elements, row by row, an element
 * written filled in the colour of its writer, read marked by a white disc ringed in the
 * colour of its reader, untouched light grey, a collision red with its pair labelled. The
 * SVG is plain: no script, no external font or image, one <style> of classes. Memories
 * larger than FP_MAX_CELLS elements show a window of whole rows (around the collision, or
 * from the first element touched), with a note.
 */
#include "footprint.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 24 bytes: an element is an i32 offset, an iteration's flat number below 2^31 (a loop
 * index is an i32, a grid has at most 2^31-1 blocks). */
typedef struct FpCell {
	int32_t e;
	int32_t w, w2, r, r2; /* the first two different iterations that wrote / read it, -1: none */
	bool used;
} FpCell;

struct FpMem {
	const Mem *mem;
	bool stored;
	const char *skipped;
	FpCell *v;            /* open addressing on e, at most half full */
	size_t cap, used;
	bool full;            /* FP_RECORD_MAX elements recorded: later new elements are not */
	int64_t outside;      /* touches outside the memory (E0601 when run, docs/language.md 7.6.7) */
	const char *why;      /* the recording stopped early */
	bool over_budget;
};

typedef struct FpColl {
	const Mem *mem;
	int64_t e, pa, pb;
	bool both_write;
	const char *label, *message;
} FpColl;

struct FpCode {
	const char *kind, *title, *pname;
	Loc at;
	int64_t iterations;
	int order;            /* the order races.c checked it in (phases before their kernel) */
	FpMem **mems;
	int nmems, cap;
	FpColl *colls;
	int ncolls, ccap;
};

struct Footprint {
	FpCode **codes;
	int ncodes, cap;
	bool ran;
};

Footprint *fp_new(void)
{
	return xcalloc(1, sizeof(Footprint));
}

void fp_free(Footprint *fp)
{
	if (!fp)
		return;
	for (int i = 0; i < fp->ncodes; i++) {
		FpCode *c = fp->codes[i];
		for (int j = 0; j < c->nmems; j++) {
			free(c->mems[j]->v);
			free(c->mems[j]);
		}
		free(c->mems);
		free(c->colls);
		free(c);
	}
	free(fp->codes);
	free(fp);
}

void fp_ran(Footprint *fp)
{
	fp->ran = true;
}

FpCode *fp_code(Footprint *fp, const char *kind, Loc at, const char *title, const char *pname, int64_t iterations)
{
	if (fp->ncodes == fp->cap) {
		fp->cap = fp->cap ? 2 * fp->cap : 8;
		fp->codes = xrealloc(fp->codes, (size_t)fp->cap * sizeof *fp->codes);
	}
	FpCode *c = xcalloc(1, sizeof *c);
	c->kind = kind;
	c->at = at;
	c->title = title;
	c->pname = pname;
	c->iterations = iterations;
	c->order = fp->ncodes;
	fp->codes[fp->ncodes++] = c;
	return c;
}

FpMem *fp_mem(FpCode *c, const Mem *m, bool stored, const char *skipped)
{
	if (c->nmems == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->mems = xrealloc(c->mems, (size_t)c->cap * sizeof *c->mems);
	}
	FpMem *fm = xcalloc(1, sizeof *fm);
	fm->mem = m;
	fm->stored = stored;
	fm->skipped = skipped;
	c->mems[c->nmems++] = fm;
	return fm;
}

static FpCell *cell_slot(FpCell *v, size_t cap, int64_t e)
{
	size_t h = (size_t)((uint64_t)e * 0x9E3779B97F4A7C15u >> 20) & (cap - 1);
	while (v[h].used && v[h].e != e)
		h = (h + 1) & (cap - 1);
	return &v[h];
}

void fp_touch(FpMem *fm, int64_t e, int64_t p, bool write)
{
	if (e < 0 || e >= fm->mem->size || p < 0 || p > INT32_MAX) {
		fm->outside++;
		return;
	}
	if (!fm->cap) {
		fm->cap = 64;
		fm->v = xcalloc(fm->cap, sizeof *fm->v);
	}
	FpCell *s = cell_slot(fm->v, fm->cap, e);
	if (!s->used) {
		if (fm->used >= FP_RECORD_MAX) {
			fm->full = true;
			return;
		}
		if (fm->used + 1 > fm->cap / 2) {
			size_t ncap = fm->cap * 2;
			FpCell *nv = xcalloc(ncap, sizeof *nv);
			for (size_t i = 0; i < fm->cap; i++)
				if (fm->v[i].used)
					*cell_slot(nv, ncap, fm->v[i].e) = fm->v[i];
			free(fm->v);
			fm->v = nv;
			fm->cap = ncap;
			s = cell_slot(fm->v, fm->cap, e);
		}
		*s = (FpCell){ (int32_t)e, -1, -1, -1, -1, true };
		fm->used++;
	}
	int32_t *a = write ? &s->w : &s->r, *b = write ? &s->w2 : &s->r2;
	if (*a < 0)
		*a = (int32_t)p;
	else if (*a != p && *b < 0)
		*b = (int32_t)p;
}

void fp_stopped(FpMem *fm, const char *why, bool over_budget)
{
	if (!fm->why) {
		fm->why = why;
		fm->over_budget = over_budget;
	}
}

void fp_collision(FpCode *c, const Mem *m, int64_t e, int64_t pa, int64_t pb, bool both_write, const char *label,
		  const char *message)
{
	if (c->ncolls == c->ccap) {
		c->ccap = c->ccap ? 2 * c->ccap : 4;
		c->colls = xrealloc(c->colls, (size_t)c->ccap * sizeof *c->colls);
	}
	c->colls[c->ncolls++] = (FpColl){ m, e, pa, pb, both_write, label, message };
}

/* ---- the picture ---- */

/* Colours of the iterations: no red among them (red is a collision), none too light to see
 * on white. */
static const char *const palette[FP_PALETTE] = {
	"#1f77b4", "#ff9f1c", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#e7ba52",
};
#define FP_RED "#ff0000"
#define FP_UNTOUCHED "#e6e6e6"

enum {
	MARGIN = 16,
	ROWLAB = 40,      /* the row labels' column, left of a grid */
	MAXW = 1180,      /* memories are laid out side by side up to this width */
	GAP = 28,         /* between memories side by side */
};

/* Text for XML: & < > " escaped, control bytes and bytes that are not well-formed UTF-8 as
 * '?' (an XML parser rejects both). */
static void xml_text(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		unsigned char ch = *u;
		int n = ch < 0x80 ? 1 : (ch >> 5) == 6 && ch >= 0xC2 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 && ch <= 0xF4 ? 4 : 0;
		bool ok = n > 0;
		for (int i = 1; i < n && ok; i++)
			ok = (u[i] & 0xC0) == 0x80;
		if (ok && n == 3 && ((ch == 0xE0 && u[1] < 0xA0) || (ch == 0xED && u[1] >= 0xA0)))
			ok = false; /* overlong, or a surrogate */
		if (ok && n == 4 && ((ch == 0xF0 && u[1] < 0x90) || (ch == 0xF4 && u[1] >= 0x90)))
			ok = false;
		if (!ok) {
			fputc('?', f);
			u++;
			continue;
		}
		if (n > 1) {
			fwrite(u, 1, (size_t)n, f);
			u += n;
			continue;
		}
		switch (ch) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(ch < 0x20 || ch == 0x7F ? '?' : ch, f); break;
		}
		u++;
	}
}

/* Where drawing stands: F the text, Y the baseline of the last line, WIDTH the widest
 * thing so far. A memory is drawn at its own origin and placed by a translate. */
typedef struct Draw {
	FILE *f;
	int64_t y, width;
	bool sampled;         /* some memory shows a window */
	unsigned sizes;       /* bit K: cells of K pixels are drawn (their <defs>) */
} Draw;

/* Widens the picture for a text of N characters at X (at most 7 px a character at 12 px). */
static void text_width(Draw *d, int64_t x, size_t n)
{
	int64_t w = x + (int64_t)n * 7;
	if (w > d->width)
		d->width = w;
}

/* A line of text at X, on a new baseline DY below the last; CLS its class. */
static void line(Draw *d, int64_t x, int64_t dy, const char *cls, const char *text)
{
	d->y += dy;
	fprintf(d->f, "<text class=\"%s\" x=\"%lld\" y=\"%lld\">", cls, (long long)x, (long long)d->y);
	xml_text(d->f, text);
	fputs("</text>\n", d->f);
	text_width(d, x, strlen(text));
}

static void linef(Draw *d, int64_t x, int64_t dy, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void linef(Draw *d, int64_t x, int64_t dy, const char *cls, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	line(d, x, dy, cls, buf);
}

static int64_t isqrt64(int64_t n)
{
	int64_t r = 0;
	while ((r + 1) * (r + 1) <= n)
		r++;
	return r;
}

/* Elements per row: a square's side (a matrix), else 32 or 64. */
static int64_t grid_cols(int64_t size)
{
	if (size <= 16384) {
		int64_t s = isqrt64(size);
		if (s * s == size && s >= 4 && s <= 128)
			return s;
	}
	if (size <= 32)
		return size > 0 ? size : 1;
	return size <= 1024 ? 32 : 64;
}

static int cell_cmp(const void *x, const void *y)
{
	const FpCell *a = x, *b = y;
	return a->e < b->e ? -1 : a->e > b->e;
}

static const FpColl *coll_of(const FpCode *c, const Mem *m)
{
	for (int i = 0; i < c->ncolls; i++)
		if (c->colls[i].mem == m)
			return &c->colls[i];
	return NULL;
}

/* Memory FM of code C at its own origin: the attributes of its group into A, the drawing
 * into D. */
static void draw_mem(Draw *d, FILE *a, const FpCode *c, const FpMem *fm)
{
	const Mem *m = fm->mem;
	FILE *f = d->f;
	const char *kindw = m->is_alloc ? "alloc" : "buffer";
	fputs(" data-name=\"", a);
	xml_text(a, m->name);
	fprintf(a, "\" data-size=\"%lld\"", (long long)m->size);
	char head[512];
	snprintf(head, sizeof head, "%s (%s %s %lld)", m->name, kindw, uir_type_name(m->ty), (long long)m->size);
	const FpColl *co = coll_of(c, m);
	int64_t size = m->size, cols = grid_cols(size);
	int64_t cs = 448 / cols;
	cs = cs < 6 ? 6 : cs > 24 ? 24 : cs;
	FpCell *cells = xmalloc((fm->used + 1) * sizeof *cells);
	size_t n = 0;
	int64_t nw = 0, nr = 0, lo = -1;
	for (size_t i = 0; i < fm->cap; i++)
		if (fm->v[i].used) {
			cells[n++] = fm->v[i];
			nw += fm->v[i].w >= 0;
			nr += fm->v[i].r >= 0;
			if (lo < 0 || fm->v[i].e < lo)
				lo = fm->v[i].e;
		}
	qsort(cells, n, sizeof *cells, cell_cmp);
	/* the window: whole rows, around the collision or from the first element touched */
	int64_t first = 0, shown = size;
	bool sample = size > FP_MAX_CELLS;
	if (sample) {
		int64_t rows = FP_MAX_CELLS / cols, total_rows = (size + cols - 1) / cols;
		int64_t anchor = co && co->e >= 0 && co->e < size ? co->e : lo >= 0 ? lo : 0;
		int64_t start = anchor / cols - rows / 8;
		if (start > total_rows - rows)
			start = total_rows - rows;
		if (start < 0)
			start = 0;
		first = start * cols;
		shown = rows * cols < size - first ? rows * cols : size - first;
		d->sampled = true;
	}
	int64_t rows = (shown + cols - 1) / cols;
	size_t drawn = 0;
	for (size_t i = 0; i < n; i++)
		drawn += cells[i].e >= first && cells[i].e < first + shown;
	fprintf(a, " data-first=\"%lld\" data-shown=\"%lld\" data-cols=\"%lld\" data-cell=\"%lld\" data-touched=\"%zu\" "
		   "data-drawn=\"%zu\" data-written=\"%lld\" data-read=\"%lld\" data-sample=\"%d\" data-complete=\"%d\"",
		(long long)first, (long long)shown, (long long)cols, (long long)cs, n, drawn, (long long)nw, (long long)nr,
		sample, !fm->why && !fm->full);
	line(d, 0, 0, "mt", head);
	const char *how = fm->stored ? (nr ? "written and read" : "written") : "read only";
	linef(d, 0, 15, "sub", "%s here: %lld element%s written, %lld read", how, (long long)nw, nw == 1 ? "" : "s",
	      (long long)nr);
	int64_t gx = ROWLAB, gy = d->y + 8;
	int64_t gw = (shown < cols ? shown : cols) * cs, gh = rows * cs;
	/* untouched cells: a grey band per row, white lines between the columns */
	int64_t every = cs >= 12 ? 1 : cs >= 8 ? 4 : 8;
	for (int64_t r = 0; r < rows; r++) {
		int64_t in_row = shown - r * cols < cols ? shown - r * cols : cols;
		fprintf(f, "<rect class=\"bg\" x=\"%lld\" y=\"%lld\" width=\"%lld\" height=\"%lld\"/>\n", (long long)gx,
			(long long)(gy + r * cs), (long long)(in_row * cs - 1), (long long)(cs - 1));
		if (r % every == 0)
			fprintf(f, "<text class=\"rl\" x=\"%lld\" y=\"%lld\">%lld</text>\n", (long long)(gx - 4),
				(long long)(gy + r * cs + (cs > 9 ? cs - 3 : 7)), (long long)(first + r * cols));
	}
	for (int64_t k = 1; k < cols && k < shown; k++)
		fprintf(f, "<rect class=\"gl\" x=\"%lld\" y=\"%lld\" width=\"1\" height=\"%lld\"/>\n",
			(long long)(gx + k * cs - 1), (long long)gy, (long long)gh);
	/* each touched cell a <use> of the square (and the read disc) of its size, coloured by
	 * class: about 80 bytes a cell */
	d->sizes |= 1u << cs;
	bool co_in = co && co->e >= first && co->e < first + shown;
	bool co_drawn = false;
	for (size_t i = 0; i <= n; i++) {
		FpCell red = { co_in ? (int32_t)co->e : 0, -1, -1, -1, -1, true };
		const FpCell *e = i < n ? &cells[i] : &red;
		if (i == n && (!co_in || co_drawn))
			break; /* (the collision's element is drawn last if the record stopped before it) */
		if (e->e < first || e->e >= first + shown)
			continue;
		int64_t k = e->e - first, x = gx + k % cols * cs, y = gy + k / cols * cs;
		bool hit = co_in && co->e == e->e;
		char cls[8];
		if (hit)
			snprintf(cls, sizeof cls, "x");
		else if (e->w >= 0)
			snprintf(cls, sizeof cls, "c%d", (int)(e->w % FP_PALETTE));
		else
			snprintf(cls, sizeof cls, "u");
		fprintf(f, "<use href=\"#q%lld\" x=\"%lld\" y=\"%lld\" class=\"%s\" data-e=\"%lld\"", (long long)cs,
			(long long)x, (long long)y, cls, (long long)e->e);
		if (e->w >= 0)
			fprintf(f, " data-w=\"%lld\"", (long long)e->w);
		if (e->w2 >= 0)
			fprintf(f, " data-w2=\"%lld\"", (long long)e->w2);
		if (e->r >= 0)
			fprintf(f, " data-r=\"%lld\"", (long long)e->r);
		if (e->r2 >= 0)
			fprintf(f, " data-r2=\"%lld\"", (long long)e->r2);
		if (hit) {
			co_drawn = true;
			fprintf(f, " data-collision=\"");
			xml_text(f, co->label);
			fputs("\"><title>", f);
			xml_text(f, co->message);
			fputs("</title></use>\n", f);
			continue; /* all red: nothing drawn over it */
		}
		fputs("/>\n", f);
		if (e->w2 >= 0) /* a second writer (atomics, or another run of the code): a white diagonal */
			fprintf(f, "<use href=\"#v%lld\" x=\"%lld\" y=\"%lld\"/>\n", (long long)cs, (long long)x, (long long)y);
		if (e->r >= 0)
			fprintf(f, "<use href=\"#o%lld\" x=\"%lld\" y=\"%lld\" class=\"s%d%s\"/>\n", (long long)cs, (long long)x,
				(long long)y, (int)(e->r % FP_PALETTE), e->r2 >= 0 ? " r2" : "");
	}
	/* the collision: a red frame around its cell, the pair right of the grid at its row */
	if (co_in) {
		int64_t k = co->e - first, x = gx + k % cols * cs, y = gy + k / cols * cs;
		int64_t ly = y + (cs - 1) / 2, lx = gx + gw + 22;
		fprintf(f, "<rect class=\"xf\" x=\"%lld\" y=\"%lld\" width=\"%lld\" height=\"%lld\"/>\n", (long long)x - 2,
			(long long)y - 2, (long long)cs + 2, (long long)cs + 2);
		fprintf(f, "<path class=\"xline\" d=\"M%lld %lldL%lld %lld\"/>\n", (long long)(gx + gw + 3), (long long)ly,
			(long long)(lx - 4), (long long)ly);
		char lab[512];
		snprintf(lab, sizeof lab, "%s[%lld]: %s", m->name, (long long)co->e, co->label);
		fprintf(f, "<text class=\"xl\" x=\"%lld\" y=\"%lld\" data-e=\"%lld\">", (long long)lx, (long long)(ly + 4),
			(long long)co->e);
		xml_text(f, lab);
		fputs("</text>\n", f);
		text_width(d, lx, strlen(lab) + 2);
	}
	if (gx + gw > d->width)
		d->width = gx + gw;
	d->y = gy + gh;
	/* notes */
	if (co) {
		line(d, 0, 16, "xn", co->message);
		if (!co_in)
			linef(d, 0, 14, "note", "(%s[%lld] lies outside the elements drawn)", m->name, (long long)co->e);
	}
	if (sample)
		linef(d, 0, 16, "note", "a sample: elements %lld to %lld of %lld drawn (%zu of the %zu touched)",
		      (long long)first, (long long)(first + shown - 1), (long long)size, drawn, n);
	if (fm->full)
		linef(d, 0, 16, "note", "more than %d elements touched: the first %d are recorded", FP_RECORD_MAX,
		      FP_RECORD_MAX);
	if (fm->why)
		linef(d, 0, 16, "note", "%s: %s", fm->over_budget ? "the record stops early" : "not recorded in full", fm->why);
	if (fm->outside)
		linef(d, 0, 16, "note", "%lld accesses outside %s (E0601 when run)", (long long)fm->outside, m->name);
	free(cells);
}

static int code_cmp(const void *x, const void *y)
{
	const FpCode *a = *(const FpCode *const *)x, *b = *(const FpCode *const *)y;
	if (a->at.line != b->at.line)
		return a->at.line < b->at.line ? -1 : 1;
	if (a->at.col != b->at.col)
		return a->at.col < b->at.col ? -1 : 1;
	return a->order - b->order;
}

static void legend(Draw *d)
{
	FILE *f = d->f;
	int64_t x = MARGIN, tx = MARGIN + 96;
	d->y += 20;
	for (int i = 0; i < 6; i++)
		fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"13\" height=\"13\" fill=\"%s\"/>\n", (long long)(x + 14 * i),
			(long long)(d->y - 10), palette[i]);
	linef(d, tx, 0, "lg", "written by iteration 0, 1, 2, ... of the parallel index (its flat number mod %d)",
	      FP_PALETTE);
	d->y += 18;
	fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"13\" height=\"13\" class=\"u\"/>\n", (long long)x,
		(long long)(d->y - 10));
	fprintf(f, "<circle class=\"rd\" cx=\"%lld\" cy=\"%lld\" r=\"3.5\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		(long long)x + 6, (long long)(d->y - 4), palette[0]);
	fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"13\" height=\"13\" fill=\"%s\"/>\n", (long long)x + 14,
		(long long)(d->y - 10), palette[2]);
	fprintf(f, "<circle class=\"rd\" cx=\"%lld\" cy=\"%lld\" r=\"3.5\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		(long long)x + 20, (long long)(d->y - 4), palette[2]);
	line(d, tx, 0, "lg", "read: a white disc ringed in the reader's colour (dashed: more than one reader)");
	d->y += 18;
	fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"13\" height=\"13\" fill=\"%s\"/>\n", (long long)x,
		(long long)(d->y - 10), FP_UNTOUCHED);
	fprintf(f, "<rect x=\"%lld\" y=\"%lld\" width=\"13\" height=\"13\" class=\"lx\"/>\n", (long long)x + 14,
		(long long)(d->y - 10));
	line(d, tx, 0, "lg", "grey: untouched; red: a collision the race check found, labelled with its two iterations");
}

char *fp_svg(const Footprint *fp, const UirProgram *p, size_t *len)
{
	if (!fp || !fp->ran)
		return NULL;
	char *body = NULL;
	size_t blen = 0;
	Draw d = { open_memstream(&body, &blen), 0, 640, false, 0 };
	if (!d.f)
		uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
	int ncoll = 0;
	FpCode **codes = xmalloc(((size_t)fp->ncodes + 1) * sizeof *codes);
	if (fp->ncodes)
		memcpy(codes, fp->codes, (size_t)fp->ncodes * sizeof *codes);
	qsort(codes, (size_t)fp->ncodes, sizeof *codes, code_cmp);
	for (int i = 0; i < fp->ncodes; i++)
		ncoll += codes[i]->ncolls;
	linef(&d, MARGIN, 26, "h", "%s: the footprint of %d checked code%s, %d collision%s", p->path, fp->ncodes,
	      fp->ncodes == 1 ? "" : "s", ncoll, ncoll == 1 ? "" : "s");
	legend(&d);
	for (int i = 0; i < fp->ncodes; i++) {
		const FpCode *c = codes[i];
		fprintf(d.f, "<g class=\"code\" data-kind=\"%s\" data-line=\"%d\" data-p=\"", c->kind, c->at.line);
		xml_text(d.f, c->pname);
		fprintf(d.f, "\" data-iterations=\"%lld\" data-collisions=\"%d\">\n", (long long)c->iterations, c->ncolls);
		line(&d, MARGIN, 40, "ct", c->title);
		if (!c->nmems)
			line(&d, MARGIN, 18, "note", "it accesses no memory");
		/* the memories private to each iteration, in one line */
		const char *skip_why = NULL;
		char skipped[1024], names[1024];
		size_t sl = 0, nl = 0;
		skipped[0] = names[0] = 0;
		for (int j = 0; j < c->nmems; j++)
			if (c->mems[j]->skipped && sl < sizeof skipped - 200) {
				skip_why = c->mems[j]->skipped;
				sl += (size_t)snprintf(skipped + sl, sizeof skipped - sl, "%s%s", sl ? " " : "", c->mems[j]->mem->name);
				nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", c->mems[j]->mem->name);
			}
		if (skip_why) {
			d.y += 18;
			fprintf(d.f, "<text class=\"note\" x=\"%d\" y=\"%lld\" data-skipped=\"", MARGIN, (long long)d.y);
			xml_text(d.f, skipped);
			fputs("\">", d.f);
			xml_text(d.f, names);
			fputs(": ", d.f);
			xml_text(d.f, skip_why);
			fputs("</text>\n", d.f);
			text_width(&d, MARGIN, strlen(names) + strlen(skip_why) + 2);
		}
		/* its memories side by side, in rows up to MAXW wide */
		int64_t x = MARGIN, top = d.y + 26, row_h = 0;
		for (int j = 0; j < c->nmems; j++) {
			if (c->mems[j]->skipped)
				continue;
			char *mb = NULL, *ab = NULL;
			size_t mlen = 0, alen = 0;
			Draw md = { open_memstream(&mb, &mlen), 0, 0, false, 0 };
			FILE *af = open_memstream(&ab, &alen);
			if (!md.f || !af)
				uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
			draw_mem(&md, af, c, c->mems[j]);
			if (fclose(md.f) != 0 || fclose(af) != 0)
				uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
			if (x > MARGIN && x + md.width > MAXW) {
				top += row_h + 36;
				x = MARGIN;
				row_h = 0;
			}
			fprintf(d.f, "<g class=\"mem\"%s transform=\"translate(%lld,%lld)\">\n%s</g>\n", ab, (long long)x,
				(long long)top, mb);
			if (x + md.width > d.width)
				d.width = x + md.width;
			if (md.y > row_h)
				row_h = md.y;
			d.sampled |= md.sampled;
			d.sizes |= md.sizes;
			x += md.width + GAP;
			free(mb);
			free(ab);
		}
		d.y = top + row_h;
		fputs("</g>\n", d.f);
	}
	if (!fp->ncodes)
		line(&d, MARGIN, 40, "note", "the program has no parallel loop: nothing to check");
	if (d.sampled)
		linef(&d, MARGIN, 36, "note", "a sample: memories larger than %d elements show a window of whole rows (each "
			  "says which)", FP_MAX_CELLS);
	d.y += 20;
	d.width += MARGIN;
	if (fclose(d.f) != 0)
		uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
	free(codes);
	char *out = NULL;
	size_t olen = 0;
	FILE *f = open_memstream(&out, &olen);
	if (!f)
		uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\" "
		   "font-family=\"sans-serif\" font-size=\"12\" data-collisions=\"%d\" data-codes=\"%d\">\n",
		(long long)d.width, (long long)d.y, (long long)d.width, (long long)d.y, ncoll, fp->ncodes);
	fputs("<title>", f);
	xml_text(f, p->path);
	fputs(": footprint (uir check --footprint)</title>\n", f);
	fprintf(f, "<style>\n"
		   ".h{font-size:14px;font-weight:bold} .ct{font-size:13px;font-weight:bold} .mt{fill:#222;font-weight:bold}\n"
		   ".sub{fill:#333;font-size:11px} .note{fill:#555;font-size:11px} .xn{fill:#c00000;font-size:11px}\n"
		   ".lg{fill:#333;font-size:11px} .rl{fill:#777;font-size:9px;text-anchor:end}\n"
		   ".bg{fill:%s} .gl{fill:#ffffff} .u{fill:#ffffff;stroke:#bbbbbb;stroke-width:1}\n"
		   ".x{fill:%s} .lx{fill:%s} .xl{fill:#c00000;font-weight:bold}\n"
		   ".xf{fill:none;stroke:#800000;stroke-width:1.5} .xline{stroke:%s;stroke-width:1.5;fill:none}\n"
		   ".rd{fill:#ffffff} .r2{stroke-dasharray:2 1.5}\n",
		FP_UNTOUCHED, FP_RED, FP_RED, FP_RED);
	for (int i = 0; i < FP_PALETTE; i++)
		fprintf(f, ".c%d{fill:%s} .s%d{stroke:%s}\n", i, palette[i], i, palette[i]);
	fputs("</style>\n<defs>\n", f);
	for (int cs = 1; cs < 32; cs++) {
		if (!(d.sizes >> cs & 1))
			continue;
		double h = (double)(cs - 1) / 2, r = (double)((cs - 1) * 3 / 5) / 2;
		fprintf(f, "<rect id=\"q%d\" width=\"%d\" height=\"%d\"/>\n", cs, cs - 1, cs - 1);
		fprintf(f, "<circle id=\"o%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#ffffff\" stroke-width=\"%g\"/>\n", cs, h,
			h, r, cs >= 16 ? 2 : 1.5);
		fprintf(f, "<path id=\"v%d\" d=\"M0 %dL%d 0\" stroke=\"#ffffff\" stroke-width=\"1.5\" fill=\"none\"/>\n", cs,
			cs - 1, cs - 1);
	}
	fputs("</defs>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%lld\" height=\"%lld\" fill=\"#ffffff\"/>\n", (long long)d.width,
		(long long)d.y);
	fwrite(body, 1, blen, f);
	fputs("</svg>\n", f);
	free(body);
	if (fclose(f) != 0)
		uir_internal_error(__FILE__, __LINE__, "open_memstream failed");
	*len = olen;
	return out;
}

/* ---- writing the picture ---- */

static bool write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return false;
		}
		s += k;
		n -= (size_t)k;
	}
	return true;
}

int fp_write_file(const char *path, const char *text, size_t n, const char **why)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		*why = strerror(EISDIR);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device (/dev/stdout, /dev/full) or a FIFO: nothing to rename over */
		int fd = open(path, O_WRONLY | O_TRUNC);
		bool ok = fd >= 0 && write_all(fd, text, n);
		int e = errno;
		if (fd >= 0 && close(fd) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (!ok) {
			*why = strerror(e);
			return -1;
		}
		return 0;
	}
	if (exists && access(path, W_OK) != 0) {
		*why = strerror(errno); /* a file we may not write is not replaced either */
		return -1;
	}
	/* a temporary file in PATH's folder (a rename does not cross file systems) */
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp = xmalloc(dl + strlen(path + dl) + 16);
	memcpy(tmp, path, dl);
	sprintf(tmp + dl, ".%s.XXXXXX", path + dl);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		*why = strerror(errno);
		free(tmp);
		return -1;
	}
	mode_t mode;
	if (exists)
		mode = st.st_mode & 07777;
	else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	bool ok = fchmod(fd, mode) == 0 && write_all(fd, text, n);
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlink(tmp);
		*why = strerror(e);
	}
	free(tmp);
	return ok ? 0 : -1;
}
