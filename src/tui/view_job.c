/* view_job.c - a view's rows computed on a worker thread (view_job.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscope/base/alloc.h"
#include "view.h"
#include "view_job.h"

/*
 * Give the worker JOB_WAIT_MS: rows done by then come in with the frame
 * that answers the key (the main loop polls before drawing), not a poll
 * later after a frame of the old rows.
 */
#define JOB_WAIT_MS 25

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ 0, ms * 1000000 }, NULL);
}

bool osc_view_background(const struct osc_tui *t)
{
	return !t->script && t->trace.nr_events >= OSC_ASYNC_MIN_EVENTS;
}

bool osc_view_jobs_wanted(const struct osc_tui *t)
{
	return t->jobs_async || osc_view_background(t);
}

static void *job_thread(void *arg)
{
	struct osc_view_job *j = arg;

	while (atomic_load(j->held))
		sleep_ms(1);
	j->work(j->arg);
	atomic_store(&j->done, true);
	return NULL;
}

/* j's copies of run selection sel and filter f. */
static void copy_selection(const struct osc_runsel *sel, const struct osc_filter *f,
			   struct osc_view_job *j)
{
	struct osc_error err;

	osc_runsel_copy(&j->sel, sel);
	osc_filter_init(&j->filter);
	for (size_t i = 0; i < f->nr_patterns; i++)
		osc_filter_add_pattern(&j->filter, f->patterns[i]);
	if (f->re_text)
		osc_filter_set_regex(&j->filter, f->re_text, &err);
}

static void release_selection(struct osc_view_job *j)
{
	osc_runsel_release(&j->sel);
	osc_filter_release(&j->filter);
}

bool osc_view_job_start(struct osc_tui *t, struct osc_view_job *j, void (*work)(void *),
			void *arg)
{
	return osc_view_job_start_on(t, &t->sel, &t->filter, j, work, arg);
}

bool osc_view_job_start_on(struct osc_tui *t, const struct osc_runsel *sel,
			   const struct osc_filter *f, struct osc_view_job *j,
			   void (*work)(void *), void *arg)
{
	j->held = &t->jobs_held;
	j->work = work;
	j->arg = arg;
	copy_selection(sel, f, j);
	atomic_store(&j->done, false);
	j->again = false;
	if (pthread_create(&j->thread, NULL, job_thread, j)) {
		release_selection(j);
		return false;
	}
	j->running = true;
	return true;
}

void osc_view_job_wait_briefly(struct osc_tui *t, const struct osc_view *v,
			       struct osc_view_job *j)
{
	for (int ms = 0; osc_tui_top(t) == v && ms < JOB_WAIT_MS && !atomic_load(&j->done); ms++)
		sleep_ms(1);
}

bool osc_view_job_finished(struct osc_view_job *j)
{
	return j->running && atomic_load(&j->done);
}

void osc_view_job_join(struct osc_view_job *j)
{
	pthread_join(j->thread, NULL);
	j->running = false;
	release_selection(j);
}
