/*
 * tui.c - the entry point and the main loop: read input, map it to an
 * action, let the view (then the generic view code, then command.c) handle
 * it, and draw once per input from the state.
 */
#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "opscope/load/load.h"
#include "opscope/analysis/trace_cache.h"
#include "command.h"
#include "display.h"
#include "draw.h"
#include "input.h"
#include "kept.h"
#include "keymap.h"
#include "loading.h"
#include "prompt.h"
#include "script.h"
#include "tui.h"
#include "view.h"
#include "view_job.h"

static unsigned do_action(struct osc_tui *t, enum osc_action a)
{
	struct osc_view *v = osc_tui_top(t);
	unsigned r = OSC_R_UNHANDLED;

	t->acting = a;
	t->waiting = OSC_ACT_NONE; /* any action drops the one that waits */
	if (v->ops->action)
		r = v->ops->action(t, v, a);
	if (r & OSC_R_UNHANDLED)
		r = osc_view_action(t, v, a);
	if (r & OSC_R_UNHANDLED)
		r = osc_command_action(t, a);
	return r;
}

/* Wheel scrolls, a click selects the row under the pointer. */
static unsigned do_mouse(struct osc_tui *t, const struct osc_input *in)
{
	struct osc_view *v = osc_tui_top(t);
	int row = in->y - osc_draw_first_row();

	if (in->buttons & BUTTON4_PRESSED) {
		osc_view_select(v, v->cur > 3 ? v->cur - 3 : 0);
	} else if (in->buttons & BUTTON5_PRESSED) {
		osc_view_select(v, v->cur + 3);
	} else if ((in->buttons & BUTTON1_PRESSED) && row >= 0 && (size_t)row < v->height &&
		   v->top + (size_t)row < v->tab.nr_rows) {
		osc_view_select(v, v->top + (size_t)row);
	}
	return OSC_R_REDRAW;
}

static unsigned dispatch(struct osc_tui *t, const struct osc_input *in)
{
	enum osc_action a;
	char name[32];

	if (t->prompt.active && in->kind == OSC_IN_COMMAND) /* a script's :dump */
		return osc_command_run(t, in->text);
	if (t->prompt.active)
		return osc_prompt_input(t, in);
	switch (in->kind) {
	case OSC_IN_KEY:
		if (in->key == KEY_RESIZE)
			return OSC_R_REDRAW;
		a = in->is_char && in->key >= 0x80 ? OSC_ACT_NONE
						    : osc_keymap_lookup(osc_key_normalize(in->key));
		if (a == OSC_ACT_NONE) {
			osc_key_name(in->key, name, sizeof(name));
			osc_tui_message(t, OSC_MSG_INFO, "%s is not bound to anything (? for help)",
					name);
			return OSC_R_REDRAW;
		}
		return do_action(t, a);
	case OSC_IN_MOUSE:
		return t->args->no_mouse ? 0 : do_mouse(t, in);
	case OSC_IN_COMMAND:
		return osc_command_run(t, in->text);
	case OSC_IN_ERROR:
		osc_tui_message(t, OSC_MSG_ERROR, "%s", in->text);
		return OSC_R_REDRAW;
	default:
		return OSC_R_NONE;
	}
}

/* Keep the detail pane showing the top view's selected row. */
static void update_pane(struct osc_tui *t)
{
	static unsigned pane_view;
	static size_t pane_row;
	static unsigned pane_gen, pane_swaps, pane_rev;
	struct osc_view *v = osc_tui_top(t);
	struct osc_lines lines = { 0 };

	if (!t->pane_on || !v->ops->detail)
		return;
	/* The same row of the same rows (a level change rebuilds them: rev) keeps its pane. */
	if (t->pane.ops && pane_view == v->id && pane_row == v->cur && pane_gen == t->gen &&
	    pane_swaps == t->swaps && pane_rev == v->rev)
		return;
	if (v->tab.nr_rows)
		v->ops->detail(t, v, v->cur, &lines);
	else /* an empty table (no kernels, a filter that matches nothing) */
		osc_lines_add(&lines, OSC_MARK_NONE, "", "no row: the table above is empty");
	osc_view_release(&t->pane);
	osc_view_init(t, &t->pane, &osc_view_detail, &lines);
	pane_view = v->id;
	pane_row = v->cur;
	pane_gen = t->gen;
	pane_swaps = t->swaps;
	pane_rev = v->rev;
}

/* Whether a worker of view v still computes rows: its own or ahead (view_job.h). */
static bool working(struct osc_view *v)
{
	return osc_view_busy(v) || osc_view_ahead(v);
}

/*
 * Take in aggregates finished by worker threads; views above a changed table
 * rebuild. Returns whether a worker is still running.
 */
static bool poll_jobs(struct osc_tui *t, unsigned *r)
{
	bool busy = false;

	for (size_t i = 0; i < t->depth; i++) {
		if (osc_view_poll(t, t->stack[i])) {
			t->swaps++;
			t->top_swaps += i + 1 == t->depth;
			for (size_t k = i + 1; k < t->depth; k++)
				t->stack[k]->built_gen = t->gen - 1;
			*r |= OSC_R_REDRAW;
		}
		busy |= working(t->stack[i]);
	}
	osc_early_poll(t, busy);
	return busy || osc_early_busy(t);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * OPSCOPE_TUI_TIMING=FILE appends, per input, the milliseconds from reading
 * it to the end of the redraw (the latency a user sees), and for a table
 * computed in the background, to the redraw that shows it (what the input
 * asked for: "KEY, shown").
 */
static void log_timing(FILE *f, const struct osc_input *in, double ms, bool shown)
{
	char name[64];

	if (!f)
		return;
	if (in->kind == OSC_IN_KEY)
		osc_key_name(in->key, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%.40s", in->kind == OSC_IN_COMMAND ? in->text : "line");
	fprintf(f, "%8.2f ms  %s%s\n", ms, name, shown ? ", shown" : "");
}

static void main_loop(struct osc_tui *t, struct osc_script *script)
{
	unsigned r = OSC_R_REDRAW;
	struct osc_input in = { .kind = OSC_IN_NONE };
	const char *timing_path = getenv("OPSCOPE_TUI_TIMING");
	FILE *timing = timing_path && *timing_path ? fopen(timing_path, "a") : NULL;
	double start = 0;
	struct osc_input asked = { .kind = OSC_IN_NONE }; /* the last input, for its table */

	if (timing) /* each line as soon as it is known, for a watcher */
		setvbuf(timing, NULL, _IOLBF, 0);
	for (;;) {
		bool busy;
		unsigned swaps = t->top_swaps;

		if (r & OSC_R_QUIT)
			break;
		osc_view_refresh(t, osc_tui_top(t));
		busy = poll_jobs(t, &r) || t->waiting != OSC_ACT_NONE;
		if (t->waiting != OSC_ACT_NONE &&
		    !osc_tui_warm_before(t, t->waiting_stage) &&
		    !osc_view_busy(osc_tui_top(t))) {
			enum osc_action a = t->waiting;

			t->waiting = OSC_ACT_NONE;
			if (osc_tui_top(t)->id == t->waiting_view) {
				t->msg[0] = '\0';
				r |= do_action(t, a);
				continue;
			}
		}
		if (r & (OSC_R_REDRAW | OSC_R_REBUILD)) {
			update_pane(t);
			osc_draw_screen(t);
		}
		if (in.kind != OSC_IN_NONE)
			log_timing(timing, &in, now_ms() - start, false);
		else if (t->top_swaps != swaps && asked.kind != OSC_IN_NONE)
			log_timing(timing, &asked, now_ms() - start, true);
		if (in.kind != OSC_IN_NONE)
			asked = in;
		if (script)
			osc_script_next(script, t->prompt.active, &in);
		else
			osc_input_read(busy ? 4 : 200, &in); /* a table computed: shown soon */
		if (in.kind != OSC_IN_NONE)
			start = now_ms();
		if (in.kind == OSC_IN_END)
			break;
		if (in.kind == OSC_IN_NONE) {
			r = OSC_R_NONE;
			continue;
		}
		if (t->popup && in.kind != OSC_IN_COMMAND) {
			free(t->popup); /* any key closes it */
			t->popup = NULL;
			r = OSC_R_REDRAW;
			continue;
		}
		if (!t->prompt.active && in.kind != OSC_IN_COMMAND && t->msg[0]) {
			memcpy(t->last_msg, t->msg, sizeof(t->msg)); /* y shows it whole */
			t->msg[0] = '\0';
		}
		r = dispatch(t, &in);
	}
	if (timing)
		fclose(timing);
}

void osc_tui_detect_runs(struct osc_tui *t, const struct osc_trace *tr, struct osc_runs *out,
			 const char *what)
{
	struct osc_runs_opts ro = { .range = t->args->run_range, .whole = t->args->whole };
	struct osc_error err;
	char msg[1024];

	osc_error_clear(&err);
	if (osc_runs_detect_opts(tr, &ro, out, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s%s (runs detected as without it)", what, msg);
		osc_runs_release(out);
		osc_runs_detect(tr, out);
	}
}

/* Filter, runs and kernel names from the command line; problems go to the status line. */
static void apply_args(struct osc_tui *t)
{
	const struct osc_tui_args *a = t->args;
	struct osc_error err;
	char msg[1024];

	osc_error_clear(&err);
	osc_tui_detect_runs(t, &t->trace, &t->runs, "");
	/* Built whatever the style, so that m can show every style. */
	osc_names_init(&t->names);
	if (osc_names_build(&t->names, &t->trace, a->demangler, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s", msg);
	}
	t->names.style = a->names;
	osc_filter_init(&t->filter);
	for (size_t i = 0; i < a->nr_filters; i++)
		osc_filter_add_pattern(&t->filter, a->filters[i]);
	if (a->regex && osc_filter_set_regex(&t->filter, a->regex, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s", msg);
	}
	t->filter_spec = osc_filter_describe(&t->filter);
	if (osc_runsel_parse(a->runs, t->runs.nr, t->runs.warmup, &t->sel, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_note(t, OSC_MSG_ERROR, "%s (default runs used)", msg);
		osc_runsel_parse(NULL, t->runs.nr, t->runs.warmup, &t->sel, &err);
	}
	t->gen = osc_tui_state(t, &t->sel);
	t->last_toggled = -1;
	t->export_as = OSC_EXPORT_CSV;
	osc_warnings_note(t, &t->trace, &t->runs, "");
}

unsigned osc_tui_state(struct osc_tui *t, const struct osc_runsel *sel)
{
	return osc_states_id(&t->states, sel->on, sel->nr_runs, &t->filter);
}

unsigned osc_tui_state_guess(struct osc_tui *t, const struct osc_filter *f)
{
	return osc_states_guess(&t->states, t->sel.on, t->sel.nr_runs, f);
}

#define WARM_POLL_NS 1000000 /* how often a held warm-up, or a script waiting on it, looks */

/* Wait while a script holds the warm-up there. */
static void wait_while(atomic_bool *held)
{
	while (atomic_load(held))
		nanosleep(&(struct timespec){ 0, WARM_POLL_NS }, NULL);
}

static void *warm_thread(void *arg)
{
	struct osc_tui *t = arg;

	wait_while(&t->warm_held);
	osc_trace_launchers(&t->trace); /* the tree and the links */
	atomic_store(&t->warm_stage, OSC_WARM_LINKS);
	osc_trace_timeline(&t->trace);
	atomic_store(&t->warm_stage, OSC_WARM_TIMELINE);
	wait_while(&t->warm_rest_held);
	osc_trace_cache_warm(&t->trace);
	osc_trace_categories(&t->trace, t->args->categories); /* with the user's rules */
	atomic_store(&t->warm_stage, OSC_WARM_ALL);
	return NULL;
}

/*
 * A big trace's launchers and host tree take a second or more: build them on
 * a spare thread now, so the first mapping, path or K answer does not wait.
 */
static void start_warming(struct osc_tui *t)
{
	if (!osc_view_background(t))
		return;
	t->warming = !pthread_create(&t->warm, NULL, warm_thread, t);
	t->ahead = true;
}

void osc_tui_warm_hold(struct osc_tui *t)
{
	if (t->warming)
		return;
	atomic_store(&t->warm_held, true);
	t->warming = !pthread_create(&t->warm, NULL, warm_thread, t);
}

/* Wait until the warm-up has built up to stage s. */
static void wait_for(struct osc_tui *t, enum osc_warm_stage s)
{
	while (osc_tui_warm_before(t, s))
		nanosleep(&(struct timespec){ 0, WARM_POLL_NS }, NULL);
}

void osc_tui_warm_views(struct osc_tui *t)
{
	atomic_store(&t->warm_rest_held, true);
	atomic_store(&t->warm_held, false);
	wait_for(t, OSC_WARM_TIMELINE);
}

void osc_tui_warm_go(struct osc_tui *t)
{
	atomic_store(&t->warm_held, false);
	atomic_store(&t->warm_rest_held, false);
	wait_for(t, OSC_WARM_ALL);
}

bool osc_tui_warm_before(struct osc_tui *t, enum osc_warm_stage s)
{
	return t->warming && atomic_load(&t->warm_stage) < (int)s;
}

bool osc_tui_ahead_now(struct osc_tui *t)
{
	return t->ahead && !osc_tui_warm_before(t, OSC_WARM_ALL);
}

/*
 * The action being done waits, in view v, for the warm-up up to stage need
 * and for v's rows: main_loop does it when it may.
 */
static void wait_in(struct osc_tui *t, const struct osc_view *v, enum osc_warm_stage need)
{
	t->waiting = t->acting;
	t->waiting_view = v->id;
	t->waiting_stage = need;
}

bool osc_tui_wait_rows(struct osc_tui *t, struct osc_view *v, const char *what)
{
	if (v->tab.nr_rows || !osc_view_busy(v))
		return false;
	wait_in(t, v, OSC_WARM_ALL);
	osc_tui_message(t, OSC_MSG_INFO, "%s acts once the rows are computed (a key cancels)",
			what);
	return true;
}

bool osc_tui_warming(struct osc_tui *t, const char *what, enum osc_warm_stage need)
{
	if (!osc_tui_warm_before(t, need))
		return false;
	wait_in(t, osc_tui_top(t), need);
	osc_tui_message(t, OSC_MSG_INFO, "%s opens once %s built (a key cancels)", what,
			need == OSC_WARM_LINKS ? "kernel-to-op links are" : "its index is");
	return true;
}

/* Whether a view's worker, or one computing a view's result early (early.h), still runs. */
static bool views_working(struct osc_tui *t)
{
	for (size_t i = 0; i < t->depth; i++)
		if (working(t->stack[i]))
			return true;
	return osc_early_busy(t);
}

static void release(struct osc_tui *t)
{
	/*
	 * Quitting while the warm-up still reads the trace: the process is
	 * about to exit, so leave the trace to it rather than wait. The same
	 * for a view's worker (a level computed ahead on 1M names takes a
	 * second) and a view left while its worker ran (osc_view_pop), but
	 * scripts wait for them, so that leak checks see all freed.
	 */
	bool keep_trace = osc_tui_warm_before(t, OSC_WARM_ALL);

	if (t->warming && !keep_trace)
		pthread_join(t->warm, NULL);
	if (!t->script && (views_working(t) || atomic_load(&t->closing)))
		return;
	while (atomic_load(&t->closing)) /* a script's views left while their workers ran */
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	while (t->depth)
		osc_view_pop(t);
	osc_early_release(t);
	osc_states_forget(&t->states);
	osc_view_release(&t->pane);
	osc_runsel_release(&t->sel);
	osc_runs_release(&t->runs);
	osc_filter_release(&t->filter);
	osc_names_release(&t->names);
	if (!keep_trace)
		osc_trace_release(&t->trace);
	free(t->filter_spec);
	free(t->find);
	free(t->popup);
}

/* The other trace of a compare is the base's own: none given, or the same path. */
static bool same_trace(const struct osc_tui_args *args)
{
	return !args->other || (args->path && !strcmp(args->other, args->path));
}

int osc_tui_main(const struct osc_tui_args *args)
{
	struct osc_tui t;
	struct osc_script *script = NULL;
	struct osc_error err;
	enum osc_status st;
	char msg[1024], note[256];
	enum osc_level level = args->level;
	bool interrupted;
	enum osc_display_status ds;

	memset(&t, 0, sizeof(t));
	t.args = args;
	t.kept_budget = osc_kept_budget();
	setlocale(LC_ALL, "");
	/* Numbers in and out are C's ("2.5"), whatever the locale (main.c does the same). */
	setlocale(LC_NUMERIC, "C");
	t.utf8 = osc_locale_is_utf8();
	if (args->script && !(script = osc_script_open(args->script, msg, sizeof(msg)))) {
		fprintf(stderr, "opscope: %s\n", msg);
		return 2;
	}
	t.script = script != NULL;
	osc_display_options(!args->no_color, !args->no_mouse);
	ds = osc_display_open(t.script, note, sizeof(note), msg, sizeof(msg));
	if (ds != OSC_DISPLAY_OK) {
		osc_script_free(script);
		fprintf(stderr, "opscope: %s\n", msg);
		return ds == OSC_DISPLAY_NO_TERMINAL ? OSC_TUI_NO_TERMINAL : 2;
	}
	osc_trace_init(&t.trace);
	/* a job's explorer holds its ranks' summaries (loaded by the caller), no trace */
	st = args->job ? OSC_OK : osc_loading_run(&t, &err, &interrupted);
	if (st != OSC_OK) {
		osc_display_close();
		osc_script_free(script);
		osc_trace_release(&t.trace);
		if (st == OSC_CANCELLED && !interrupted)
			return 0; /* the user asked to stop: q */
		osc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "opscope: %s\n", msg);
		return interrupted ? 128 + SIGINT : 2;
	}
	if (*note)
		osc_tui_message(&t, OSC_MSG_INFO, "%s", note);
	apply_args(&t);
	if (!args->path && !args->job) /* `opscope` alone: say how to open one's own trace */
		osc_tui_note(&t, OSC_MSG_INFO,
			     "bundled sample: opscope TRACE opens yours; ? for keys");
	start_warming(&t);
	if (args->job)
		osc_view_push(&t, &osc_view_ranks, NULL);
	else
		osc_view_push(&t, &osc_view_table,
			      &(struct osc_table_arg){ .level = level,
						       .has_sort = args->sort != OSC_STAT_NR,
						       .sort = args->sort });
	/* opscope BASE OTHER, or TRACE --other-runs: compare over the base's table
	   (the same path twice: the trace on screen against itself) */
	if ((args->other || args->other_runs) && !args->job)
		osc_view_push(&t, &osc_view_diff,
			      &(struct osc_diff_view_arg){ same_trace(args) ? NULL : args->other,
							   args->other_runs ? args->other_runs
									    : args->runs,
							   level, args->match, args->changed,
							   args->changed ? args->min_change
									 : OSC_TUI_CHANGED_PCT });
	main_loop(&t, script);
	osc_display_close();
	release(&t);
	osc_script_free(script);
	return 0;
}

int osc_tui_bind(const char *key, const char *action, char *msg, size_t size)
{
	const char *p = key;
	int code = osc_key_parse(&p);
	enum osc_action a = osc_action_find(action);

	if (code < 0 || *p || !*key) {
		snprintf(msg, size, "bind: not a key: '%s' (a character, or <Name> as <C-x>, <F2>, "
			 "<Enter>, <Tab>, <Space>)", key);
		return -1;
	}
	if (a == OSC_ACT_NR) {
		snprintf(msg, size,
			 "bind: unknown action '%s' (the names are in man opscope, KEYS, "
			 "and the ? help: move-down, quit, ...; none unbinds)", action);
		return -1;
	}
	if (!osc_keymap_bind(osc_key_normalize(code), a)) {
		snprintf(msg, size, "bind: cannot bind '%s'", key);
		return -1;
	}
	return 0;
}

void osc_tui_keys_man(FILE *out)
{
	osc_keymap_man(out);
}
