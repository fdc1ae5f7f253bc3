/*
 * view_detail.c - "field: value" lines about one row: an event's fields and
 * its args pretty-printed with json-c. Used full screen and as the pane.
 * The view takes over the lines it is opened with (struct osc_lines *).
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/trace_cache.h"
#include "view.h"

static const struct osc_column detail_cols[] = {
	{ "field", 6, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "value", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

static void add_us(struct osc_lines *out, const char *field, int64_t ns)
{
	char buf[64];

	osc_format_us((double)ns, buf, sizeof(buf));
	osc_lines_add(out, OSC_MARK_NONE, field, buf);
}

static void add_int(struct osc_lines *out, const char *field, int64_t v)
{
	char buf[32];

	if (v < 0)
		return; /* unknown */
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	osc_lines_add(out, OSC_MARK_NONE, field, buf);
}

static void add_str(struct osc_lines *out, const struct osc_trace *tr, const char *field,
		    osc_str s)
{
	if (s != OSC_STR_EMPTY)
		osc_lines_add(out, OSC_MARK_NONE, field, osc_trace_str(tr, s));
}

static void add_kernel(struct osc_lines *out, const struct osc_kernel *k)
{
	char buf[128];

	if (k->grid[0] >= 0) {
		snprintf(buf, sizeof(buf), "[%d, %d, %d]", k->grid[0], k->grid[1], k->grid[2]);
		osc_lines_add(out, OSC_MARK_NONE, "grid", buf);
	}
	if (k->block[0] >= 0) {
		snprintf(buf, sizeof(buf), "[%d, %d, %d]", k->block[0], k->block[1], k->block[2]);
		osc_lines_add(out, OSC_MARK_NONE, "block", buf);
	}
	add_int(out, "stream", k->stream);
	add_int(out, "device", k->device);
	add_int(out, "registers", k->registers);
	add_int(out, "shared_mem", k->shared_mem);
	add_int(out, "bytes", k->bytes);
	if (k->occupancy >= 0) {
		snprintf(buf, sizeof(buf), "%.2f%%", k->occupancy);
		osc_lines_add(out, OSC_MARK_NONE, "occupancy", buf);
	}
}

/*
 * The nn.Module path of an event (module.h): a host event's innermost
 * module, a device event's launching op's. Nothing when the trace has none.
 */
static void add_module(struct osc_lines *out, const struct osc_trace *tr, uint32_t ev)
{
	const struct osc_modules *m = osc_trace_modules(tr);
	uint32_t node;

	if (!m->nr_inst)
		return;
	if (osc_kind_is_device(tr->events[ev].kind))
		ev = osc_trace_launchers(tr)[ev];
	node = ev == OSC_NONE ? OSC_NONE : osc_module_node_of(m, ev);
	osc_lines_add(out, OSC_MARK_NONE, "module",
		      node == OSC_NONE ? "none (outside every nn.Module)" : osc_module_path(m, node));
}

void osc_detail_event(struct osc_tui *t, uint32_t ev, struct osc_lines *out)
{
	const struct osc_trace *tr = &t->trace;
	const struct osc_event *e = &tr->events[ev];
	const struct osc_thread *th = &tr->threads[e->thread];
	const char *args = osc_trace_args(tr, ev);
	uint32_t run = t->runs.run_of[ev];
	char buf[512];

	if (!out->nr) { /* the lines are about this event: T opens the tree at it */
		out->has_event = true;
		out->event = ev;
	}
	osc_lines_add(out, OSC_MARK_NONE, "name", osc_trace_str(tr, e->name));
	if (osc_trace_op(tr, ev) != e->name)
		add_str(out, tr, "op", osc_trace_op(tr, ev));
	add_str(out, tr, "cat", e->cat);
	osc_lines_add(out, OSC_MARK_NONE, "kind", osc_kind_name(e->kind));
	add_us(out, "start_us", e->ts - osc_trace_origin(tr));
	add_us(out, "dur_us", e->dur);
	if (run == OSC_NONE)
		snprintf(buf, sizeof(buf), "none");
	else
		snprintf(buf, sizeof(buf), "%u %s", run,
			 osc_trace_str(tr, t->runs.runs[run].name));
	osc_lines_add(out, OSC_MARK_NONE, "run", buf);
	snprintf(buf, sizeof(buf), "pid %s tid %s%s%s", osc_trace_str(tr, th->pid),
		 osc_trace_str(tr, th->tid), th->thread_name ? " " : "",
		 osc_trace_str(tr, th->thread_name));
	osc_lines_add(out, OSC_MARK_NONE, "thread", buf);
	add_module(out, tr, ev);
	add_str(out, tr, "shape", e->shape);
	add_str(out, tr, "provider", osc_trace_provider(tr, ev));
	if (e->corr_id != OSC_ID_NONE)
		add_int(out, "correlation", osc_trace_id_value(tr, e->corr_id));
	if (e->ext != OSC_ID_NONE)
		add_int(out, "external_id", osc_trace_id_value(tr, e->ext));
	if (e->kernel != OSC_NONE && e->kernel < tr->nr_kernels)
		add_kernel(out, &tr->kernels[e->kernel]);
	if (osc_trace_args_lost(tr)) {
		/* The profiler wrote the file again: its bytes are not this event's args. */
		osc_lines_add(out, OSC_MARK_TITLE, "args", "");
		snprintf(buf, sizeof(buf), "not shown: %s changed on disk since it was loaded",
			 tr->path);
		osc_lines_add_text(out, "", buf);
	} else if (*args) {
		struct json_object *obj = json_tokener_parse(args);

		osc_lines_add(out, OSC_MARK_TITLE, "args", "");
		if (obj) {
			osc_lines_add_text(out, "", json_object_to_json_string_ext(
				obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(obj);
		} else {
			osc_lines_add_text(out, "", args);
		}
	}
}

static void detail_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct osc_lines *l = osc_xcalloc(1, sizeof(*l));

	(void)t;
	if (arg) {
		*l = *(const struct osc_lines *)arg; /* take over the lines */
	}
	v->priv = l;
}

static void detail_close(struct osc_view *v)
{
	osc_lines_release(v->priv);
	free(v->priv);
}

static const char *detail_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_lines *l = ctx;

	snprintf(buf, size, "%s", col ? l->value[row] : l->field[row]);
	return buf;
}

static void detail_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct osc_lines *l = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = detail_cols, .nr_cols = 2, .nr_rows = l->nr, .cell = detail_cell, .ctx = l,
	};
}

static enum osc_mark detail_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct osc_lines *l = v->priv;

	(void)t;
	return l->mark[row];
}

static void detail_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct osc_lines *l = v->priv;

	(void)t;
	snprintf(buf, size, "detail of %s", l->nr ? l->value[0] : "nothing");
}

static uint32_t detail_row_event(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct osc_lines *l = v->priv;

	(void)t;
	(void)row;
	return l->has_event ? l->event : OSC_NONE;
}

static const char *detail_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "detail";
}

const struct osc_view_ops osc_view_detail = {
	.name = "detail",
	.open = detail_open,
	.close = detail_close,
	.table = detail_table,
	.flex_col = 1,
	.mark = detail_mark,
	.title = detail_title,
	.export_name = detail_export_name,
	.row_event = detail_row_event,
};
