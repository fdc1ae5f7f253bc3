/* early.c - results of views computed before the view is opened (early.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "early.h"
#include "view.h"

static const struct osc_early_kind *const kinds[OSC_EARLY_COUNT] = {
	[OSC_EARLY_GPU] = &osc_early_gpu,
	[OSC_EARLY_TREE] = &osc_early_tree,
	[OSC_EARLY_WHATIF] = &osc_early_whatif,
};

/* What t would take of kind now (osc_early_kind's aim). */
static unsigned aim_of(const struct osc_tui *t, const struct osc_early_kind *kind)
{
	return kind->aim ? kind->aim(t) : 0;
}

/* t's entry for id, made on first use. */
static struct osc_early *entry(struct osc_tui *t, enum osc_early_id id)
{
	struct osc_early *e = &t->early[id];

	if (!e->kind) {
		e->kind = kinds[id];
		e->t = t;
		e->result = osc_xcalloc(1, kinds[id]->size);
	}
	return e;
}

/* Give back e's result: none is ready. */
static void drop(struct osc_early *e)
{
	e->kind->release(e->result);
	memset(e->result, 0, e->kind->size);
	e->ready = false;
}

/* e's worker is done: its result is kept when it fits in the budget. */
static void join(struct osc_tui *t, struct osc_early *e)
{
	osc_view_job_join(&e->job);
	e->ready = true;
	e->too_big = e->kind->bytes(t, e->result) > t->kept_budget;
	if (e->too_big)
		drop(e);
}

/* Take in e's result once its worker is done; drop a result of another gen or aim. */
static void take_in(struct osc_tui *t, struct osc_early *e)
{
	if (osc_view_job_finished(&e->job))
		join(t, e);
	if (e->ready && (e->gen != t->gen || e->aim != aim_of(t, e->kind)))
		drop(e);
}

static void work(void *arg)
{
	struct osc_early *e = arg;

	e->kind->compute(e->t, e->aim, &e->job.sel, &e->job.filter, e->result);
}

/* Start the first result due (none when one is being computed); true when one started. */
static bool start_next(struct osc_tui *t)
{
	if (!osc_tui_ahead_now(t) || osc_early_busy(t))
		return false;
	for (int id = 0; id < OSC_EARLY_COUNT; id++) {
		struct osc_early *e = &t->early[id];

		if ((e->kind && (e->ready || (e->too_big && e->gen == t->gen &&
					       e->aim == aim_of(t, e->kind)))) ||
		    !kinds[id]->wanted(t))
			continue;
		e = entry(t, (enum osc_early_id)id);
		e->gen = t->gen;
		e->aim = aim_of(t, e->kind);
		return osc_view_job_start(t, &e->job, work, e);
	}
	return false;
}

void osc_early_poll(struct osc_tui *t, bool busy)
{
	for (int id = 0; id < OSC_EARLY_COUNT; id++)
		if (t->early[id].kind)
			take_in(t, &t->early[id]);
	if (!busy && osc_view_background(t))
		start_next(t);
}

void osc_early_settle(struct osc_tui *t)
{
	atomic_store(&t->jobs_held, false);
	do {
		for (int id = 0; id < OSC_EARLY_COUNT; id++) {
			struct osc_early *e = &t->early[id];

			if (e->kind && e->job.running)
				join(t, e);
			if (e->kind) /* one of runs before: computed again */
				take_in(t, e);
		}
	} while (start_next(t));
}

bool osc_early_busy(const struct osc_tui *t)
{
	for (int id = 0; id < OSC_EARLY_COUNT; id++)
		if (t->early[id].job.running)
			return true;
	return false;
}

bool osc_early_take(struct osc_tui *t, enum osc_early_id id, unsigned aim, void *out)
{
	struct osc_early *e = &t->early[id];

	if (!e->kind)
		return false;
	if (osc_view_job_finished(&e->job))
		join(t, e);
	/* not take_in: the aim asked may be what t aims at no longer (a view's Tab) */
	if (!e->ready || e->gen != t->gen || e->aim != aim)
		return false;
	memcpy(out, e->result, e->kind->size);
	memset(e->result, 0, e->kind->size);
	e->ready = false;
	return true;
}

void osc_early_give(struct osc_tui *t, enum osc_early_id id, unsigned aim, void *result)
{
	struct osc_early *e = entry(t, id);

	if (e->job.running) { /* its own comes */
		e->kind->release(result);
		memset(result, 0, e->kind->size);
		return;
	}
	if (e->ready)
		drop(e);
	memcpy(e->result, result, e->kind->size);
	memset(result, 0, e->kind->size);
	e->gen = t->gen;
	e->aim = aim;
	e->ready = true;
	e->too_big = false;
}

void osc_early_release(struct osc_tui *t)
{
	for (int id = 0; id < OSC_EARLY_COUNT; id++) {
		struct osc_early *e = &t->early[id];

		if (!e->kind)
			continue;
		if (e->job.running)
			osc_view_job_join(&e->job);
		e->kind->release(e->result);
		free(e->result);
		memset(e, 0, sizeof(*e));
	}
}
