/* loading.c - the loader thread and the progress screen. */
#include <curses.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/load/load.h"
#include "opscope/analysis/trace_cache.h"
#include "draw.h"
#include "input.h"
#include "keymap.h"
#include "loading.h"

struct job {
	struct osc_tui *t;
	pthread_mutex_t lock;
	struct osc_load_progress progress; /* last report, under lock */
	bool done;                         /* under lock */
	volatile int cancel;
	bool interrupted;                  /* cancelled by SIGINT, not by a key */
	enum osc_status status;
	struct osc_error err;
};

static void on_progress(const struct osc_load_progress *p, void *userdata)
{
	struct job *j = userdata;

	pthread_mutex_lock(&j->lock);
	j->progress = *p;
	pthread_mutex_unlock(&j->lock);
}

static void *load_thread(void *arg)
{
	struct job *j = arg;
	const struct osc_tui_args *a = j->t->args;
	struct osc_load_opts opts = {
		.progress = on_progress, .userdata = j, .cancel = &j->cancel,
		.max_input = a->max_input,
	};

	osc_set_oom_subject(a->path ? a->path : a->sample_name);
	if (a->path)
		j->status = osc_load(a->path, &opts, &j->t->trace, &j->err);
	else
		j->status = osc_load_buffer(a->sample_name ? a->sample_name : "sample",
					    a->sample_data, a->sample_size, &opts, &j->t->trace,
					    &j->err);
	if (j->status == OSC_OK && a->ops)
		j->status = osc_trace_select_ops(&j->t->trace, a->ops, &j->err);
	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* Poll keys and redraw the bar until the thread is done. */
static void watch(struct job *j)
{
	const char *name = j->t->args->path ? j->t->args->path : j->t->args->sample_name;

	for (;;) {
		struct osc_load_progress p;
		struct osc_input in;
		bool done;

		pthread_mutex_lock(&j->lock);
		done = j->done;
		p = j->progress;
		pthread_mutex_unlock(&j->lock);
		if (done)
			return;
		/* Fast loads finish before the first poll and never flash a bar. */
		osc_input_read(100, &in);
		if (in.kind == OSC_IN_END) /* the terminal hung up */
			j->cancel = 1;
		if (in.kind == OSC_IN_KEY) {
			enum osc_action a = osc_keymap_lookup(osc_key_normalize(in.key));

			if (a == OSC_ACT_BACK || a == OSC_ACT_QUIT)
				j->cancel = 1;
			if (in.key == 3) /* <C-c>: the input loop's name for SIGINT */
				j->interrupted = true;
		}
		pthread_mutex_lock(&j->lock);
		done = j->done;
		p = j->progress;
		pthread_mutex_unlock(&j->lock);
		if (!done)
			osc_draw_loading(name ? name : "sample", &p, j->t->utf8);
	}
}

enum osc_status osc_loading_run(struct osc_tui *t, struct osc_error *err, bool *interrupted)
{
	struct job j;
	pthread_t th;

	memset(&j, 0, sizeof(j));
	j.t = t;
	pthread_mutex_init(&j.lock, NULL);
	osc_error_clear(&j.err);
	if (pthread_create(&th, NULL, load_thread, &j)) {
		load_thread(&j);
	} else {
		if (!t->script)
			watch(&j);
		pthread_join(th, NULL);
	}
	pthread_mutex_destroy(&j.lock);
	*err = j.err;
	*interrupted = j.status == OSC_CANCELLED && j.interrupted;
	if (*interrupted)
		snprintf(err->message, sizeof(err->message), "interrupted while loading");
	return j.status;
}
