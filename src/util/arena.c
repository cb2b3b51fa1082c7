/* arena.c - compiler memory: every node of a program comes from one arena, freed at once. */
#include "../uir_internal.h"
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
	ArenaBlock *next;
	size_t used, cap;
	max_align_t data[];
};

void *arena_alloc(Arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	ArenaBlock *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = xmalloc(sizeof *b + cap);
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
	}
	void *r = (char *)b->data + b->used;
	b->used += n;
	memset(r, 0, n);
	return r;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *r = arena_alloc(a, n + 1);
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

void arena_free(Arena *a)
{
	ArenaBlock *b = a->head;
	while (b) {
		ArenaBlock *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
}
