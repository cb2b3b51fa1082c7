/* runprog.c - the steps of `uir run` from the check to the end of the run, for the command and
 * the library (runprog.h). */
#include "runprog.h"
#include "cli.h"
#include "../interp/interp.h"
#include "../util/escape.h"

int runprog_names(const UirProgram *p, const RunPlan *plan)
{
	for (int i = 0; i < plan->ninputs; i++) {
		const RunInput *in = &plan->inputs[i];
		if (buffers_find(p, in->name) < 0)
			return usage_error("run", "%s%s: %s has no buffer called '%s'", in->path ? "--input " : "input ",
					   in->name, p->path, in->name);
	}
	return -1;
}

int runprog_check(UirProgram *p, const RunPlan *plan)
{
	/* the buffers start from their INITs, but those the inputs replace (--seed keeps each
	 * random range): the range analysis may read them (docs/analysis.md) */
	p->inits_stand = true;
	for (int i = 0; i < plan->ninputs; i++) {
		int b = buffers_find(p, plan->inputs[i].name);
		if (b >= 0)
			p->bufs[b]->replaced = true;
	}
	int n = plan->racecheck ? race_check_program(p, p->err) : uir_check(p, 0, p->err);
	return n ? UIR_EXIT_ERROR : -1;
}

/* Gives buffer IN->name of DATA its input. Returns 0, or -1 after E0203. */
static int load_input(UirProgram *p, void **data, const RunInput *in)
{
	int i = buffers_find(p, in->name);
	if (in->path)
		return buffers_load_npy(p, data, i, in->path);
	buffers_load_array(p, data, i, &in->array);
	return 0;
}

/* The buffers of a run between two runs of `--repeat`: their INIT, then the inputs. */
typedef struct ResetCtx {
	UirProgram *p;
	void **data;
	const RunPlan *plan;
} ResetCtx;

/* --seed: the `random` buffers drawn from the seed. */
static void seed_buffers(UirProgram *p, const RunPlan *plan, void **data)
{
	if (!plan->seeded)
		return;
	for (int i = 0; i < p->nbufs; i++)
		buffers_seed(p->bufs[i], data[i], plan->seed, plan->opt.threads);
}

static int reset_buffers(void *ctx)
{
	ResetCtx *r = ctx;
	if (buffers_reset(r->p, r->data, r->plan->opt.threads) != 0)
		return -1;
	seed_buffers(r->p, r->plan, r->data);
	for (int i = 0; i < r->plan->ninputs; i++)
		if (load_input(r->p, r->data, &r->plan->inputs[i]) != 0)
			return -1;
	return 0;
}

/* The exact analysis may have read a buffer's INIT to accept the program
 * (docs/language.md 7.6.2, 7.6.3): when an input gives such a buffer other values,
 * the race check runs again with them before anything runs. Every input buffer's values
 * become the ones the analysis reads from then on (the loop optimiser's decisions too). Returns the number of errors
 * (each printed as check prints it, then a note naming the input). */
static int recheck_inputs(UirProgram *p, const RunPlan *plan, void **data)
{
	const RunInput *named = NULL;
	const Mem *seeded = NULL;
	for (int i = 0; i < plan->ninputs; i++) {
		Mem *m = p->bufs[buffers_find(p, plan->inputs[i].name)];
		/* the loop optimiser's analysis, later, reads the values run starts with too */
		m->check_data = data[m->index];
		if (m->read_by_check && !named)
			named = &plan->inputs[i];
	}
	for (int i = 0; plan->seeded && i < p->nbufs; i++) { /* --seed: the random buffers too */
		Mem *m = p->bufs[i];
		if (m->init != INIT_RANDOM || m->check_data)
			continue;
		m->check_data = data[i];
		if (m->read_by_check && !named && !seeded)
			seeded = m;
	}
	if ((!named && !seeded) || plan->racecheck)
		return 0;
	if (check_races(p, 0))
		return 0;
	if (named)
		uir_eprintf(p->err, "note: `uir check` accepted %s with the INIT of %s; with the values of %s%s "
			"two iterations race (above), so nothing ran\n", p->path, named->name,
			named->path ? "--input " : "input ", named->name);
	else
		uir_eprintf(p->err, "note: `uir check` accepted %s with the INIT of %s; with the values that "
			"--seed 0x%016llx draws for it two iterations race (above), so nothing ran\n", p->path,
			seeded->name, (unsigned long long)plan->seed);
	return 1;
}

int runprog_execute(UirProgram *p, RunPlan *plan, void ***datap, UirRunTimes *t)
{
	int rc = -1;
	*datap = NULL;
	for (int i = 0; rc < 0 && i < plan->ninputs; i++) { /* before any buffer is allocated */
		const RunInput *in = &plan->inputs[i];
		int b = buffers_find(p, in->name);
		if ((in->path ? buffers_check_npy(p, b, in->path) : buffers_check_array(p, b, &in->array)) != 0)
			rc = UIR_EXIT_ERROR;
	}
	void **data = NULL;
	if (rc < 0) {
		data = buffers_create(p, plan->opt.threads);
		if (!data)
			rc = UIR_EXIT_ERROR;
	}
	*datap = data;
	if (rc < 0)
		seed_buffers(p, plan, data);
	for (int i = 0; rc < 0 && i < plan->ninputs; i++)
		if (load_input(p, data, &plan->inputs[i]) != 0)
			rc = UIR_EXIT_ERROR;
	if (rc < 0 && recheck_inputs(p, plan, data) != 0)
		rc = UIR_EXIT_ERROR;
	if (rc < 0) {
		ResetCtx reset = { p, data, plan };
		plan->opt.reset = reset_buffers;
		plan->opt.reset_ctx = &reset;
		int erc;
		if (plan->traffic) {
			double t2 = uir_now_ms();
			plan->traffic_out = xcalloc((size_t)p->nbufs + 1, sizeof *plan->traffic_out);
			erc = interp_run_traffic(p, data, plan->traffic_out);
			if (t) {
				t->exec = uir_now_ms() - t2;
				t->engine = "interp, traffic";
			}
		} else if (plan->racecheck) {
			double t2 = uir_now_ms();
			erc = interp_run_racecheck(p, data);
			if (t) {
				t->exec = uir_now_ms() - t2;
				t->engine = "interp, racecheck";
			}
		} else {
			erc = engine_run(p, data, plan->engine, &plan->opt, t);
		}
		plan->opt.reset = NULL;
		plan->opt.reset_ctx = NULL;
		if (erc != 0)
			rc = erc;
	}
	return rc;
}
