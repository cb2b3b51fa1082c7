/* render_cuda.c - `uir render-cuda` (spec 8.4): not written yet. */
#include "render_int.h"

int render_cuda(UirProgram *p, const RenderOptions *o, Str *out, char *why, size_t whylen)
{
	(void)p;
	(void)o;
	(void)out;
	snprintf(why, whylen, "render-cuda is not implemented yet");
	return UIR_EXIT_NOT_KERNEL;
}
