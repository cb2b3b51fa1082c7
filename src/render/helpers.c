/* helpers.c - pasting runtime helpers into rendered code: the text of each helper a
 * rendering calls, and of the helpers it needs, each once, dependencies first
 * (runtime/README.md). The texts come from the table that runtime/embed.py generates
 * from the runtime headers at build time (helpers_gen.c), so every back end uses the one
 * definition of each op. */
#include "render_int.h"
#include "uir_helpers.h"
#include <stdlib.h>
#include <string.h>

/* Visits helper NAME: its needs first, then itself (into ORDER), each once. */
static void visit(const char *name, NameSet *order, int depth)
{
	if (nameset_has(order, name))
		return;
	const UirHelper *h = uir_helper_find(name);
	if (!h || depth > 64)
		uir_internal_error(__FILE__, __LINE__, name);
	const char *s = h->needs;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (!n)
			break;
		char dep[128];
		if (n >= sizeof dep)
			unreachable();
		memcpy(dep, s, n);
		dep[n] = 0;
		const UirHelper *d = uir_helper_find(dep);
		if (!d)
			uir_internal_error(__FILE__, __LINE__, dep);
		visit(d->name, order, depth + 1);
		s += n;
	}
	if (!nameset_has(order, name))
		nameset_add(order, h->name);
}

void helpers_closure(const NameSet *set, NameSet *out)
{
	/* in table order, so the output does not depend on the order of first use */
	for (int i = 0; i < uir_helper_count; i++)
		if (nameset_has(set, uir_helpers[i].name))
			visit(uir_helpers[i].name, out, 0);
}

void helpers_write(Str *out, const NameSet *set, const NameSet *skip, NameSet *done)
{
	NameSet order = { 0 };
	helpers_closure(set, &order);
	for (int i = 0; i < order.n; i++) {
		if (skip && nameset_has(skip, order.v[i]))
			continue;
		const UirHelper *h = uir_helper_find(order.v[i]);
		str_put(out, "\n");
		str_put(out, h->text);
		if (done)
			nameset_add(done, h->name);
	}
	free(order.v);
}
