/*
 * view_gpu.c - where the GPU's time goes (G): `opscope gpu`'s table for the
 * TUI's runs, and a sparkline of the device busy share over the selected
 * runs' time, so a user sees where the GPU starves.
 *
 * Tab cycles its tables, each one of `opscope gpu`'s: the breakdown (per run:
 * each device, then its streams; the selection last), the longest idle gaps
 * (--gaps), the kernel launch statistics per kernel (--launches) and per
 * launching op (--launches --per-op); x exports the table shown as that
 * command writes it. Each table is kept once built (until the runs
 * change), and on big traces built on a worker (view_job.h); there, once
 * the table asked for is shown, the others are computed ahead, one at a
 * time in Tab's order on a second worker, while they fit in the budget of
 * what a view keeps (kept.h): a first Tab then shows at once. The first
 * table itself is computed before G is pressed (early.h), so G shows it at
 * once as well.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/gpu.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/export/chart.h"
#include "cli_line.h"
#include "kept.h"
#include "view.h"
#include "view_job.h"

#define SPARK_BUCKETS 32 /* time buckets of the utilisation sparkline */
#define GAPS_SHOWN 100   /* the idle gaps table's rows (opscope gpu --gaps 100) */
#define SHORT_NS 10000   /* short kernels, as opscope gpu --launches's default */

/* The tables of the view, in Tab's order. */
enum gpu_table { GPU_BREAKDOWN, GPU_GAPS, GPU_LAUNCHES, GPU_LAUNCHES_PER_OP, GPU_TABLES };

static const char *const table_title[GPU_TABLES] = {
	"busy and idle", "longest idle gaps", "kernel launches per kernel",
	"kernel launches per op",
};

/* A table computed on a worker (view_job.h), for the runs in job.sel. */
struct gpu_job {
	struct osc_view_job job;
	const struct osc_tui *t; /* the trace and runs it reads */
	enum gpu_table table;
	unsigned gen;            /* the tui->gen it computes for */
	struct osc_names names;  /* the TUI's, sharing its tables, in the style asked (m) */
	struct osc_gpu g;        /* the result: the breakdown or the gaps */
	struct osc_launches launches; /* or the launch statistics */
};

/*
 * Each table is built when first asked for and kept until the runs change,
 * so Tab goes round the four without computing one again. On big traces a
 * table is computed on a worker: the one shown stays until it comes.
 */
struct gpu_view {
	enum gpu_table shown, want;      /* on screen; asked for (Tab) */
	struct osc_gpu g[2];             /* the breakdown, the gaps */
	struct osc_launches launches[2]; /* per kernel, per launching op */
	unsigned gen;                    /* the tui->gen of what is fresh */
	enum osc_name_style keying;      /* the names' keying the launches per kernel are of */
	bool fresh[GPU_TABLES], spark_fresh;
	bool too_big[GPU_TABLES];        /* computed ahead for gen, and did not fit */
	size_t budget;                   /* what the view may keep (tui->kept_budget) */
	char spark[SPARK_BUCKETS * 4 + 1]; /* busy share per bucket of the selected runs */
	struct gpu_job job;              /* the table asked for */
	struct gpu_job ahead;            /* another table, before it is asked for */
};

/* Where table's result is kept: the breakdown or the gaps (table < GPU_LAUNCHES). */
static struct osc_gpu *gpu_of(struct gpu_view *gv, enum gpu_table table)
{
	return &gv->g[table == GPU_GAPS];
}

/* Where table's launch statistics are kept (table >= GPU_LAUNCHES). */
static struct osc_launches *launches_of(struct gpu_view *gv, enum gpu_table table)
{
	return &gv->launches[table == GPU_LAUNCHES_PER_OP];
}

/*
 * Compute table for the runs sel of t's, into g or l (released first); the
 * launches per kernel with a row per name shown in names' style.
 */
static void compute(const struct osc_tui *t, const struct osc_names *names,
		    const struct osc_runsel *sel, enum gpu_table table, struct osc_gpu *g,
		    struct osc_launches *l)
{
	struct osc_gpu_query q = { .runs = &t->runs, .sel = sel, .kernel_wait = 30,
				   .nr_gaps = table == GPU_GAPS ? GAPS_SHOWN : 0 };
	struct osc_launch_query lq = { .runs = &t->runs, .sel = sel, .short_ns = SHORT_NS,
				       .per_op = table == GPU_LAUNCHES_PER_OP, .names = names };

	if (table >= GPU_LAUNCHES) {
		osc_launches_release(l);
		osc_gpu_launches(&t->trace, &lq, l);
	} else {
		osc_gpu_release(g);
		osc_gpu_breakdown(&t->trace, &q, g);
	}
}

/* Give back every table and the sparkline. */
static void gpu_forget(struct gpu_view *gv)
{
	for (int i = 0; i < 2; i++) {
		osc_gpu_release(&gv->g[i]);
		osc_launches_release(&gv->launches[i]);
	}
	memset(gv->fresh, 0, sizeof(gv->fresh));
	memset(gv->too_big, 0, sizeof(gv->too_big));
	gv->spark_fresh = false;
}

struct gpu_cells {
	const struct osc_tui *t;
	struct gpu_view *gv;
};

static void gpu_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct gpu_view *gv = osc_xcalloc(1, sizeof(*gv));

	(void)arg;
	gv->gen = t->gen;
	gv->keying = osc_names_keying(&t->names);
	gv->budget = t->kept_budget;
	v->priv = gv;
	gv->fresh[GPU_BREAKDOWN] = osc_early_take(t, OSC_EARLY_GPU, 0, gpu_of(gv, GPU_BREAKDOWN));
}

static void job_work(void *arg)
{
	struct gpu_job *j = arg;

	compute(j->t, &j->names, &j->job.sel, j->table, &j->g, &j->launches);
}

/* Whether job j's table is still due: of the runs and names' keying shown, not built yet. */
static bool job_due(const struct gpu_view *gv, const struct gpu_job *j)
{
	return j->gen == gv->gen && !gv->fresh[j->table] &&
	       (j->table != GPU_LAUNCHES || osc_names_keying(&j->names) == gv->keying);
}

/* About the bytes a table's result holds: g's (the breakdown or the gaps), else l's. */
static size_t table_bytes(enum gpu_table table, const struct osc_gpu *g,
			  const struct osc_launches *l)
{
	if (table >= GPU_LAUNCHES)
		return l->nr * sizeof(*l->rows);
	return g->nr * sizeof(*g->rows) + g->nr_gaps * sizeof(*g->gaps);
}

/* Whether the tables kept and job j's, computed ahead, fit in the budget of a view. */
static bool ahead_fits(struct gpu_view *gv, const struct gpu_job *j)
{
	size_t bytes = table_bytes(j->table, &j->g, &j->launches);

	for (int k = 0; k < GPU_TABLES; k++)
		if (gv->fresh[k])
			bytes += table_bytes((enum gpu_table)k, gpu_of(gv, (enum gpu_table)k),
					     launches_of(gv, (enum gpu_table)k));
	return bytes <= gv->budget;
}

/* Wait for job j, then keep its table when it is still due (and, ahead, fits), else drop it. */
static void job_finish(struct gpu_view *gv, struct gpu_job *j)
{
	osc_view_job_join(&j->job);
	if (job_due(gv, j) && j == &gv->ahead && !ahead_fits(gv, j)) {
		gv->too_big[j->table] = true;
	} else if (job_due(gv, j)) {
		if (j->table >= GPU_LAUNCHES) {
			osc_launches_release(launches_of(gv, j->table)); /* m: the old style's */
			*launches_of(gv, j->table) = j->launches;
		} else {
			*gpu_of(gv, j->table) = j->g;
		}
		gv->fresh[j->table] = true;
		return;
	}
	osc_gpu_release(&j->g);
	osc_launches_release(&j->launches);
}

static void gpu_close(struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	for (int i = 0; i < 2; i++) {
		struct gpu_job *j = i ? &gv->ahead : &gv->job;

		if (j->job.running) { /* a script's held job: closing lets it go */
			atomic_store(j->job.held, false);
			job_finish(gv, j);
		}
	}
	gpu_forget(gv);
	free(gv);
}

/* The device busy share (all devices) per time bucket from the first to the last selected run. */
static void sparkline(struct osc_tui *t, struct gpu_view *gv)
{
	double busy[SPARK_BUCKETS];
	int64_t from = INT64_MAX, to = INT64_MIN, step;
	size_t nr;
	const struct osc_span *s = osc_trace_device_spans(&t->trace, &nr);

	gv->spark[0] = '\0';
	for (size_t r = 0; r < t->runs.nr; r++) {
		if (r < t->sel.nr_runs && !t->sel.on[r])
			continue;
		from = t->runs.runs[r].ts < from ? t->runs.runs[r].ts : from;
		if (osc_sat_add(t->runs.runs[r].ts, t->runs.runs[r].dur) > to)
			to = osc_sat_add(t->runs.runs[r].ts, t->runs.runs[r].dur);
	}
	if (!nr || to <= from)
		return;
	step = (to - from + SPARK_BUCKETS - 1) / SPARK_BUCKETS;
	for (int b = 0; b < SPARK_BUCKETS; b++) {
		int64_t a = from + b * step;

		busy[b] = a < to ? (double)osc_spans_within(s, nr, a, a + step) / (double)step : 0;
	}
	osc_chart_spark_range(busy, SPARK_BUCKETS, 0, 1, t->utf8, gv->spark, sizeof(gv->spark));
}

/* Whether the table asked for is being computed ahead (it comes in with that job). */
static bool wanted_ahead(const struct gpu_view *gv)
{
	return gv->ahead.job.running && gv->ahead.table == gv->want && job_due(gv, &gv->ahead);
}

/*
 * Show the table asked for when it is fresh; else compute it, on a worker
 * when views compute on them (true: the worker runs) or now.
 */
static bool show_wanted(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;
	struct gpu_job *j = &gv->job;

	if (j->job.running || wanted_ahead(gv))
		return true;
	if (!gv->fresh[gv->want]) {
		*j = (struct gpu_job){ .t = t, .table = gv->want, .gen = gv->gen,
				       .names = t->names };
		if (osc_view_jobs_wanted(t) && osc_view_job_start(t, &j->job, job_work, j))
			return true;
		compute(t, &t->names, &t->sel, gv->want, gpu_of(gv, gv->want),
			launches_of(gv, gv->want));
		gv->fresh[gv->want] = true;
	}
	if (gv->shown != gv->want) {
		gv->shown = gv->want;
		v->cur = v->top = v->hoff = 0;
	}
	return false;
}

static void gpu_build(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	if (gv->gen != t->gen) {
		gpu_forget(gv);
		gv->gen = t->gen;
	}
	if (!gv->spark_fresh)
		sparkline(t, gv);
	gv->spark_fresh = true;
	if (show_wanted(t, v))
		osc_view_job_wait_briefly(t, v, wanted_ahead(gv) ? &gv->ahead.job : &gv->job.job);
}

static bool gpu_busy(struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	return gv->job.job.running || wanted_ahead(gv);
}

static bool gpu_ahead(struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	return gv->ahead.job.running;
}

/*
 * Once the table asked for is shown, start computing the next one in Tab's
 * order that is neither built nor too big, when views compute ahead
 * (osc_tui_ahead_now).
 */
static void ahead_start(struct osc_tui *t, struct gpu_view *gv)
{
	struct gpu_job *j = &gv->ahead;

	if (!osc_tui_ahead_now(t) || j->job.running || gv->job.job.running ||
	    gv->gen != t->gen || gv->shown != gv->want || !gv->fresh[gv->shown])
		return;
	for (int i = 1; i < GPU_TABLES; i++) {
		enum gpu_table table = (gv->shown + i) % GPU_TABLES;

		if (gv->fresh[table] || gv->too_big[table])
			continue;
		*j = (struct gpu_job){ .t = t, .table = table, .gen = gv->gen, .names = t->names };
		osc_view_job_start(t, &j->job, job_work, j);
		return;
	}
}

/*
 * A finished table comes in: shown if it is the one asked for, else the
 * next is started; a table computed ahead is kept (shown if asked for
 * meanwhile). True when the table shown changed.
 */
static bool gpu_poll(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;
	bool done = osc_view_job_finished(&gv->job.job), came = false;

	if (osc_view_job_finished(&gv->ahead.job)) {
		job_finish(gv, &gv->ahead);
		/* with no job of its own, the table asked for was this one */
		came = gv->shown != gv->want && !gv->job.job.running;
	}
	if (done)
		job_finish(gv, &gv->job);
	if (done || came) {
		if (gv->gen == t->gen)
			show_wanted(t, v);
		else /* the runs changed meanwhile: build anew */
			v->built_gen = t->gen - 1;
		osc_view_rows_replaced(t, v);
	}
	ahead_start(t, gv);
	return done || came;
}

static const char *gpu_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct gpu_cells *c = ctx;
	const struct osc_trace *tr = &c->t->trace;
	enum gpu_table shown = c->gv->shown;

	switch (shown) {
	case GPU_GAPS:
		return osc_gpu_gap_cell(tr, &c->t->names, &c->t->runs, gpu_of(c->gv, shown), row,
					col, buf, size);
	case GPU_LAUNCHES:
	case GPU_LAUNCHES_PER_OP:
		return osc_launch_cell(tr, &c->t->names, launches_of(c->gv, shown), row, col, buf,
				       size);
	default:
		return osc_gpu_cell(tr, &c->t->runs, gpu_of(c->gv, shown), row, col, buf, size);
	}
}

static void gpu_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	static struct gpu_cells cells; /* one GPU view at a time on the stack */
	struct gpu_view *gv = v->priv;

	cells = (struct gpu_cells){ t, gv };
	switch (gv->shown) {
	case GPU_GAPS:
		out->cols = osc_gpu_gap_columns(&out->nr_cols);
		out->nr_rows = gpu_of(gv, gv->shown)->nr_gaps;
		break;
	case GPU_LAUNCHES:
	case GPU_LAUNCHES_PER_OP:
		out->cols = osc_launch_columns(gv->shown == GPU_LAUNCHES_PER_OP, &out->nr_cols);
		out->nr_rows = launches_of(gv, gv->shown)->nr;
		break;
	default:
		out->cols = osc_gpu_columns(&out->nr_cols);
		out->nr_rows = gpu_of(gv, gv->shown)->nr;
	}
	out->cell = gpu_cell;
	out->ctx = &cells;
}

static void gpu_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;

	(void)t;
	if (gpu_busy(v))
		snprintf(buf, size, "GPU: %s (%zu rows; computing %s...)", table_title[gv->shown],
			 v->tab.nr_rows, table_title[gv->want]);
	else
		snprintf(buf, size, "GPU: %s (%zu rows; Tab: %s)", table_title[gv->shown],
			 v->tab.nr_rows, table_title[(gv->shown + 1) % GPU_TABLES]);
}

/* Tab and BackTab: the table after or before the one asked for last. */
static unsigned gpu_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct gpu_view *gv = v->priv;

	if (a != OSC_ACT_NEXT_LEVEL && a != OSC_ACT_PREV_LEVEL)
		return OSC_R_UNHANDLED;
	gv->want = (gv->want + (a == OSC_ACT_NEXT_LEVEL ? 1 : GPU_TABLES - 1)) % GPU_TABLES;
	v->built_gen = t->gen - 1;
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

static void gpu_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct gpu_view *gv = v->priv;
	const struct osc_launches *l = launches_of(gv, gv->shown);

	(void)t;
	if (gv->shown >= GPU_LAUNCHES)
		snprintf(buf, size, "short kernels (under %d us): %llu of %llu, %.2f%% of kernel time",
			 SHORT_NS / 1000, (unsigned long long)l->nr_short,
			 (unsigned long long)l->count,
			 l->total ? 100.0 * (double)l->short_total / (double)l->total : 0.0);
	else if (*gv->spark)
		snprintf(buf, size, "busy over time %s", gv->spark);
	else
		snprintf(buf, size, "no device events in the runs");
}

static const char *gpu_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "gpu";
}

/* `opscope gpu` with the TUI's trace, runs and table (the filter does not apply here). */
static char *gpu_command(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;
	char *line = osc_xstrdup("opscope gpu");
	char gaps[32];

	snprintf(gaps, sizeof(gaps), "%d", GAPS_SHOWN);
	if (gv->shown == GPU_GAPS)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--gaps"), gaps);
	if (gv->shown >= GPU_LAUNCHES)
		line = osc_cli_line_arg(line, "--launches");
	if (gv->shown == GPU_LAUNCHES_PER_OP)
		line = osc_cli_line_arg(line, "--per-op");
	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	line = osc_cli_line_runs(t, line);
	return osc_cli_line_format(line, t->export_as);
}

/*
 * m: the launches per kernel have a row per name shown (demangle.h), so
 * they are computed again where the new style keys them otherwise; the
 * rows shown stay until then.
 */
static void gpu_restyle(struct osc_tui *t, struct osc_view *v)
{
	struct gpu_view *gv = v->priv;

	if (gv->keying == osc_names_keying(&t->names))
		return;
	gv->keying = osc_names_keying(&t->names);
	gv->fresh[GPU_LAUNCHES] = false;
	if (gv->want == GPU_LAUNCHES)
		v->built_gen = t->gen - 1;
}

const struct osc_view_ops osc_view_gpu = {
	.name = "gpu",
	.open = gpu_open,
	.close = gpu_close,
	.build = gpu_build,
	.table = gpu_table,
	.flex_col = 0,
	.action = gpu_action,
	.title = gpu_title,
	.bases = gpu_bases,
	.bases_first = true,
	.export_name = gpu_export_name,
	.command = gpu_command,
	.busy = gpu_busy,
	.ahead = gpu_ahead,
	.poll = gpu_poll,
	.restyle = gpu_restyle,
};

/* Whether a GPU view is on t's stack. */
static bool gpu_view_open(const struct osc_tui *t)
{
	for (size_t i = 0; i < t->depth; i++)
		if (t->stack[i]->ops == &osc_view_gpu)
			return true;
	return false;
}

/* The breakdown is worth computing before G: the trace has device events, no GPU view is open. */
static bool early_wanted(const struct osc_tui *t)
{
	size_t nr = 0;

	osc_trace_device_spans(&t->trace, &nr);
	return nr && !gpu_view_open(t);
}

static void early_compute(const struct osc_tui *t, unsigned aim,
			  const struct osc_runsel *sel, const struct osc_filter *filter,
			  void *result)
{
	(void)aim;
	(void)filter; /* the breakdown is of every device event */
	compute(t, &t->names, sel, GPU_BREAKDOWN, result, NULL);
}

static void early_release(void *result)
{
	osc_gpu_release(result);
}

static size_t early_bytes(const struct osc_tui *t, const void *result)
{
	(void)t;
	return table_bytes(GPU_BREAKDOWN, result, NULL);
}

const struct osc_early_kind osc_early_gpu = {
	.size = sizeof(struct osc_gpu),
	.wanted = early_wanted,
	.compute = early_compute,
	.release = early_release,
	.bytes = early_bytes,
};
