/* entry.c - the one entry of both renderers for a loaded program: the check, the rendering,
 * and the line of a program not in kernel form (render_int.h, render_program). */
#include "render_int.h"

int render_program(UirProgram *p, bool cuda, const RenderOptions *o, Str *out, char *why, size_t whylen)
{
	if (uir_check(p, 0, p->err) != 0)
		return UIR_EXIT_ERROR;
	if (!cuda)
		return render_c(p, o, out);
	int rc = render_cuda(p, o, out, why, whylen);
	if (rc == UIR_EXIT_NOT_KERNEL)
		fprintf(p->err, "invalid: %s\n", why);
	return rc;
}
