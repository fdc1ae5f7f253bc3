/*
 * cmd_gpu.c - `opscope gpu`: where the GPU's time goes, per run, device and
 * stream (analysis/gpu.h): busy and idle time, computation, communication,
 * memcpy and memset, exposed communication and memcpy, and why the streams
 * were idle; with --gaps N, the N longest idle gaps instead, each with the
 * host op running when it began.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/collective.h"
#include "opscope/analysis/gpu.h"
#include "opscope/base/alloc.h"
#include "cli.h"

static void print_help(void)
{
	puts("usage: opscope gpu [OPTIONS] [TRACE]\n"
	     "\n"
	     "Where the GPU's time goes in each selected run, per device and stream, and\n"
	     "summed over the selection: busy (the union of every kernel, memcpy and\n"
	     "memset over the streams), idle, computation, communication (NCCL/RCCL\n"
	     "kernels), memcpy (also by direction) and memset time, communication and\n"
	     "memcpy that no computation hides, and for each stream why it was idle\n"
	     "(host wait, kernel wait, other: HTA's idle-time breakdown). Times in\n"
	     "microseconds, within each run's window. With --launches, per kernel\n"
	     "(--per-op: per op that launched them): how many are short and the launch\n"
	     "delay, launch call and queue time percentiles. With --collectives, the\n"
	     "collectives c10d recorded (record_param_comms): per collective, dtype,\n"
	     "message size and group size, the calls, their device time and NCCL's algbw\n"
	     "and busbw (GB/s).\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_GPU);
	puts("\n"
	     "Exit status: 0 on success, 2 on any error.");
}

struct gpu_job {
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_gpu gpu;
	struct osc_launches launches;
	struct osc_collectives collectives;
	struct osc_names names; /* kernel names as --short-names, --no-demangle ask */
	char *runs_text, *runs_json;
};

struct cells {
	const struct gpu_job *j;
	bool gaps, launches, collectives;
};

static const char *cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct cells *c = ctx;

	if (c->collectives)
		return osc_collective_cell(&c->j->collectives, row, col, buf, size);
	if (c->launches)
		return osc_launch_cell(&c->j->trace, &c->j->names, &c->j->launches, row, col, buf,
				       size);
	if (c->gaps)
		return osc_gpu_gap_cell(&c->j->trace, &c->j->names, &c->j->runs, &c->j->gpu, row,
					col, buf, size);
	return osc_gpu_cell(&c->j->trace, &c->j->runs, &c->j->gpu, row, col, buf, size);
}

static enum osc_status write_gpu(struct gpu_job *j, const struct osc_cli_view *v,
				 struct osc_error *err)
{
	const char *keys[] = { "trace", "format", "runs", "kernel_wait_ns" };
	char wait[160], shorts[32], total[32];
	const char *values[] = { osc_cli_input_name(v->path), osc_format_name(j->trace.format),
				 j->runs_text, wait };
	const char *json[] = { NULL, NULL, j->runs_json, NULL };
	struct osc_export_meta meta = { keys, values, 4, json };
	struct cells c = { j, v->gaps > 0, v->launches, v->collectives };
	struct osc_table table = { .cell = cell, .ctx = &c };
	enum osc_status st;

	snprintf(wait, sizeof(wait), "%lld", (long long)v->kernel_wait);
	if (c.collectives) {
		table.cols = osc_collective_columns(&table.nr_cols);
		table.nr_rows = j->collectives.nr;
	} else if (c.launches) {
		const struct osc_launches *l = &j->launches;

		osc_format_us_int(l->short_total, shorts, sizeof(shorts));
		osc_format_us_int(l->total, total, sizeof(total));
		keys[3] = "short_kernels";
		snprintf(wait, sizeof(wait), "%llu of %llu kernels under %lld ns (%.2f%%), %s of %s us",
			 (unsigned long long)l->nr_short, (unsigned long long)l->count,
			 (long long)v->short_kernel,
			 l->count ? 100.0 * (double)l->nr_short / (double)l->count : 0.0, shorts,
			 total);
		table.cols = osc_launch_columns(v->per_op, &table.nr_cols);
		table.nr_rows = l->nr;
	} else if (c.gaps) {
		table.cols = osc_gpu_gap_columns(&table.nr_cols);
		table.nr_rows = j->gpu.nr_gaps;
	} else {
		table.cols = osc_gpu_columns(&table.nr_cols);
		table.nr_rows = j->gpu.nr;
	}
	st = osc_cli_write_view(v, &table, &meta, err);
	if (st == OSC_OK && !osc_export_has_meta(v->format))
		fprintf(stderr, "opscope: using %s\n", j->runs_text);
	return st;
}

static enum osc_status build_gpu(struct gpu_job *j, struct osc_cli_view *v, struct osc_error *err)
{
	struct osc_gpu_query q = { .runs = &j->runs, .sel = &j->sel,
				   .kernel_wait = v->kernel_wait, .nr_gaps = v->gaps };
	struct osc_launch_query lq = { .runs = &j->runs, .sel = &j->sel,
				       .short_ns = v->short_kernel, .per_op = v->per_op,
				       .short_only = v->short_only, .names = &j->names };
	enum osc_status st = osc_cli_open(v, v->path, v->runs, &j->trace, &j->runs, &j->sel, err);

	if (st != OSC_OK)
		return st;
	/* kernel names show in the gaps' next kernels and the launch table per kernel */
	st = osc_cli_names(&j->names, &j->trace, v->names, v->demangler,
			   v->gaps > 0 || (v->launches && !v->per_op), err);
	if (st != OSC_OK)
		return st;
	if (v->collectives)
		osc_collectives(&j->trace, &j->runs, &j->sel, &j->collectives);
	else if (v->launches)
		osc_gpu_launches(&j->trace, &lq, &j->launches);
	else
		osc_gpu_breakdown(&j->trace, &q, &j->gpu);
	if (v->collectives && !j->collectives.nr)
		fprintf(stderr, "opscope: note: the selected runs hold no collective "
			"(record_param_comms with a Collective name)\n");
	else if (!v->collectives && !j->gpu.nr && !j->launches.nr)
		fprintf(stderr, "opscope: note: the selected runs hold no device event "
			"(kernel, memcpy or memset)\n");
	j->runs_text = osc_runsel_describe(&j->sel, &j->runs);
	j->runs_json = osc_cli_runs_json(&j->sel, &j->runs, j->runs_text);
	return write_gpu(j, v, err);
}

static int run_gpu(struct osc_cli_view *v)
{
	struct gpu_job j;
	struct osc_error err;
	enum osc_status st;

	memset(&j, 0, sizeof(j));
	osc_error_clear(&err);
	if (osc_cli_view_is_job(v) && v->collectives)
		return osc_ranks_collectives_run(v);
	if (v->per_call || v->ranks) {
		osc_error_set(&err, OSC_USAGE, v->per_call ? "--per-call" : "--ranks", OSC_NO_OFFSET,
			      NULL, "needs --collectives and a job's ranks (a directory or several "
			      "traces)");
		return osc_cli_fail(&err);
	}
	if (osc_cli_view_is_job(v)) {
		osc_error_set(&err, OSC_USAGE, v->path, OSC_NO_OFFSET, NULL,
			      "a job's ranks: gpu --collectives matches their calls; report --by "
			      "rank has each rank's GPU breakdown");
		return osc_cli_fail(&err);
	}
	osc_trace_init(&j.trace);
	osc_names_init(&j.names);
	st = build_gpu(&j, v, &err);
	free(j.runs_text);
	free(j.runs_json);
	osc_gpu_release(&j.gpu);
	osc_launches_release(&j.launches);
	osc_collectives_release(&j.collectives);
	osc_names_release(&j.names);
	osc_runsel_release(&j.sel);
	osc_runs_release(&j.runs);
	osc_trace_release(&j.trace);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}

int osc_cmd_gpu(int argc, char **argv)
{
	return osc_cli_view_main(argc, argv, OSC_MODE_GPU, print_help, run_gpu);
}
