/*
 * cmd_slice.c - `opscope slice`: the selected runs of a trace (and with a
 * filter, the matching ops with what they nested and launched) written as a
 * Chrome trace other tools open (slice.h chooses, chrome_write.h writes).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/slice.h"
#include "opscope/base/alloc.h"
#include "opscope/export/chrome_write.h"
#include "opscope/export/outfile.h"
#include "cli.h"

enum {
	OPT_FILTER = OSC_TOPT_END,
	OPT_REGEX,
	OPT_OPS,
};

#define SLICE 1u

static const struct osc_cli_option slice_options[] = {
	OSC_CLI_TRACE_RUN_OPTIONS(SLICE, "runs to keep (default: all but an ORT warm-up run 0)"),
	{ OPT_FILTER, "filter", 'f', "PAT",
	  "only ops matching PAT (exact or wildcard; repeatable), what they nest and launch",
	  SLICE },
	{ OPT_REGEX, "regex", 'e', "RE", "keep only ops matching the regex RE, as --filter", SLICE },
	{ OPT_OPS, "ops", 0, "CATS",
	  "ops are the events of these categories (for what ops launched; default: ops)", SLICE },
	OSC_CLI_TRACE_OUTPUT_OPTIONS(SLICE,
		"write to FILE (atomically; gzip when it ends in .gz) instead of stdout"),
	{ 0, NULL, 0, NULL, NULL, 0 },
};

struct slice_args {
	struct osc_cli_trace_args a; /* the options every one-trace command has */
	struct osc_filter filter;
};

static void print_help(void)
{
	puts("usage: opscope slice [OPTIONS] [TRACE]\n"
	     "\n"
	     "Write the selected runs of TRACE as a Chrome trace (JSON, gzip when -o names a\n"
	     ".gz file) that Perfetto, chrome://tracing, speedscope and opscope open: the\n"
	     "events overlapping the runs' windows (kept whole), the device work launched in\n"
	     "them, the flows between kept events, the metadata of their processes and\n"
	     "threads, and the trace's other top-level keys. Each event's args are written\n"
	     "as in the input. With --filter or --regex, only the matching ops, the ops and\n"
	     "runtime calls nested in them and the device work they launched (and the run\n"
	     "events). 'opscope report --runs all SLICE' gives what 'opscope report --runs\n"
	     "SPEC TRACE' gives (--runs all: in a slice of an ORT trace with several runs,\n"
	     "run 0 would be skipped as a warm-up by default).\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, slice_options, SLICE);
	puts("\n"
	     "Example: opscope slice --runs 3 -o step3.json.gz trace.json.gz\n"
	     "Exit status: 0 on success, 2 on any error.");
}

static enum osc_status parse(struct slice_args *a, int argc, char **argv, struct osc_error *err)
{
	struct osc_cli_parser p;
	enum osc_status st;
	int id;

	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, slice_options, SLICE, err)) != OSC_CLI_DONE) {
		st = OSC_OK;
		if (id == OSC_CLI_ERROR)
			return err->code;
		if (osc_cli_trace_option(id, p.arg, &a->a, &st, err)) {
			if (st != OSC_OK || a->a.help)
				return st;
			continue;
		}
		if (id == OPT_FILTER)
			osc_filter_add_pattern(&a->filter, p.arg);
		else if (id == OPT_REGEX)
			st = osc_filter_set_regex(&a->filter, p.arg, err);
		else if (id == OPT_OPS)
			a->a.v.ops = p.arg;
		if (st != OSC_OK)
			return st;
	}
	return OSC_OK;
}

struct write_arg {
	const struct osc_trace *t;
	const uint8_t *keep;
	bool gzip;
	struct osc_chrome_stats *stats;
};

static enum osc_status write_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct write_arg *w = arg;

	return osc_chrome_write(out, w->t, w->keep, w->gzip, w->stats, err);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static enum osc_status run(struct slice_args *a, struct osc_error *err)
{
	struct osc_trace t;
	struct osc_runs r = { 0 };
	struct osc_runsel sel = { 0 };
	struct osc_chrome_stats stats = { 0 };
	enum osc_status st;
	uint8_t *keep = NULL;
	char *text = NULL;

	osc_trace_init(&t);
	st = osc_cli_open(&a->a.v, a->a.v.path, a->a.runs, &t, &r, &sel, err);
	if (st == OSC_OK) {
		struct write_arg w = { &t, NULL, a->a.output && ends_with(a->a.output, ".gz"),
				       &stats };

		keep = osc_xmalloc(osc_trace_nr_written(&t) ? osc_trace_nr_written(&t) : 1);
		osc_slice_select(&t, &r, &sel, &a->filter, keep);
		w.keep = keep;
		st = osc_write_file(a->a.output, a->a.flags, write_fn, &w, err);
		if (st == OSC_OK)
			st = osc_cli_check_args(&t, err);
	}
	if (st == OSC_OK) {
		text = osc_runsel_describe(&sel, &r);
		fprintf(stderr,
			"opscope: using %s: %llu of %zu events, %llu metadata, %llu bytes\n",
			text, (unsigned long long)stats.events, osc_trace_nr_written(&t),
			(unsigned long long)stats.metadata, (unsigned long long)stats.bytes);
	}
	free(text);
	free(keep);
	osc_runsel_release(&sel);
	osc_runs_release(&r);
	osc_trace_release(&t);
	return st;
}

int osc_cmd_slice(int argc, char **argv)
{
	struct slice_args a;
	struct osc_error err;
	enum osc_status st;

	memset(&a, 0, sizeof(a));
	osc_filter_init(&a.filter);
	osc_error_clear(&err);
	st = parse(&a, argc, argv, &err);
	if (st == OSC_OK && a.a.help)
		print_help();
	else if (st == OSC_OK)
		st = run(&a, &err);
	osc_filter_release(&a.filter);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
