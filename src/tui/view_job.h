/*
 * view_job.h - a view's rows computed on a worker thread, from private
 * copies of the run selection and the filter, while the view keeps showing
 * its old rows; the view's poll op swaps the new ones in (view.h).
 */
#ifndef OPSCOPE_TUI_VIEW_JOB_H
#define OPSCOPE_TUI_VIEW_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "opscope/model/filter.h"
#include "opscope/model/runs.h"

struct osc_tui;
struct osc_view;

struct osc_view_job {
	pthread_t thread;
	atomic_bool *held;       /* the TUI's jobs_held: wait while set */
	bool running;            /* a thread was started and not joined */
	atomic_bool done;        /* set by the thread when work returned */
	bool again;              /* the data changed again meanwhile: start anew after */
	void (*work)(void *arg); /* what the thread runs */
	void *arg;
	struct osc_runsel sel;   /* copies of the UI's, for work to read */
	struct osc_filter filter;
};

/*
 * Whether t works in the background unasked (the warm-up, tables on
 * workers, results freed apart: kept.h's free_apart): a person exploring a
 * big trace, never a script, whose screens and leak checks must not depend
 * on timing.
 */
bool osc_view_background(const struct osc_tui *t);

/* Whether t's views compute on workers: osc_view_background, or a script's :jobs hold. */
bool osc_view_jobs_wanted(const struct osc_tui *t);

/*
 * Copy t's run selection and filter into j, then run work(arg) on a new
 * thread. false when no thread could start (nothing is left running).
 */
bool osc_view_job_start(struct osc_tui *t, struct osc_view_job *j, void (*work)(void *),
			void *arg);

/*
 * osc_view_job_start over run selection sel and filter f instead of t's
 * (rows computed ahead for them).
 */
bool osc_view_job_start_on(struct osc_tui *t, const struct osc_runsel *sel,
			   const struct osc_filter *f, struct osc_view_job *j,
			   void (*work)(void *), void *arg);

/*
 * Wait a few ms for j, the job of view v's rows, when v is on screen: rows
 * done by then come with the frame answering the key. A view under another
 * (built by the runs view over it, view_runs.c) does not wait.
 */
void osc_view_job_wait_briefly(struct osc_tui *t, const struct osc_view *v,
			       struct osc_view_job *j);

/* Whether j is running and its work has returned (join it, then take the result). */
bool osc_view_job_finished(struct osc_view_job *j);

/* Wait for j's thread and free its copies; again keeps its value. */
void osc_view_job_join(struct osc_view_job *j);

#endif
