/*
 * dump_skew.c - a test driver (not installed): the per-call skew table of
 * the ranks' traces given, as CSV, every call counted (no run selection).
 * tests/cli/run_skew_tests.py compares it with tests/tools/recompute_skew.py.
 *
 *     dump_skew RANK0_TRACE RANK1_TRACE ...   # exit 2 when a trace cannot be loaded
 */
#include <stdio.h>
#include <stdlib.h>

#include "opscope/analysis/collective_skew.h"
#include "opscope/export/export.h"
#include "opscope/load/load.h"
#include "opscope/model/rank.h"

struct ctx {
	const struct osc_summary *const *ranks;
	const struct osc_skew *skew;
};

static const char *cell(const void *p, size_t row, size_t col, char *buf, size_t size)
{
	const struct ctx *c = p;

	return osc_skew_cell(c->ranks, c->skew, row, col, buf, size);
}

/* The calls of the trace at path into s (set up); false, with a line on stderr, when unreadable. */
static bool summarise(const char *path, struct osc_summary *s)
{
	struct osc_trace t;
	struct osc_runs runs;
	struct osc_error err;

	osc_trace_init(&t);
	if (osc_load(path, NULL, &t, &err) != OSC_OK) {
		fprintf(stderr, "dump_skew: %s: %s\n", path, err.message);
		osc_trace_release(&t);
		return false;
	}
	osc_runs_detect(&t, &runs);
	osc_trace_rank(&t, path, &s->rank);
	osc_summary_add_calls(&t, &runs, s);
	osc_runs_release(&runs);
	osc_trace_release(&t);
	return true;
}

int main(int argc, char **argv)
{
	size_t nr = argc > 1 ? (size_t)argc - 1 : 0;
	struct osc_summary *s = calloc(nr + 1, sizeof(*s));
	const struct osc_summary **ranks = calloc(nr + 1, sizeof(*ranks));
	struct osc_skew skew = { 0 };
	struct osc_table table = { 0 };
	struct ctx ctx = { ranks, &skew };
	struct osc_error err;
	int rc = 0;

	if (!s || !ranks)
		return 2;
	for (size_t r = 0; r < nr; r++) {
		osc_summary_init(&s[r]);
		ranks[r] = &s[r];
	}
	for (size_t r = 0; r < nr && !rc; r++)
		rc = summarise(argv[r + 1], &s[r]) ? 0 : 2;
	if (!rc) {
		osc_collective_skew(ranks, nr, NULL, &skew);
		table.cols = osc_skew_columns(&table.nr_cols);
		table.nr_rows = skew.nr;
		table.cell = cell;
		table.ctx = &ctx;
		if (osc_export_table(stdout, OSC_EXPORT_CSV, &table, NULL, 0, 0, &err) != OSC_OK)
			rc = 2;
		osc_skew_release(&skew);
	}
	for (size_t r = 0; r < nr; r++)
		osc_summary_release(&s[r]);
	free(s);
	free(ranks);
	return rc;
}
