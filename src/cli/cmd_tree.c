/*
 * cmd_tree.c - `opscope tree`: the merged host call tree with the device
 * and launch time of each call path, as a drawn tree, CSV or JSON; and the
 * options and analysis `opscope kernels` shares (cmd_tree.h).
 *
 * CSV has the columns of the seed tool profile_parser_main ($$-joined path,
 * host, device and launch time, runtime calls, kernels, kernel infos), then
 * ours, named as report names the same measures, in us (--legacy-columns:
 * the seed's titles, in ms); the drawn tree shows the numbers first and the name last, behind its
 * tree guide, so deep paths never push the numbers off screen.
 *
 * --modules draws the nn.Module hierarchy (module.h) instead, with the
 * module level's measures (aggregate.h), nodes in order of first appearance.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/module.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/analysis/tree_index.h"
#include "opscope/base/suggest.h"
#include "opscope/export/outfile.h"
#include "cli.h"
#include "cmd_tree.h"
#include "config.h"

enum {
	OPT_RUNS = 1,
	OPT_FILTER,
	OPT_REGEX,
	OPT_MIN_DEPTH,
	OPT_MAX_DEPTH,
	OPT_FORMAT,
	OPT_HOST_CAT,
	OPT_DEVICE_CAT,
	OPT_MONITOR_CAT,
	OPT_OUTPUT,
	OPT_HELP,
	OPT_RUN_RANGE,
	OPT_WHOLE_TRACE,
	OPT_NO_DEMANGLE,
	OPT_SHORT_NAMES,
	OPT_DEMANGLER,
	OPT_CSV_SAFE,
	OPT_FORCE,
	OPT_MAX_INPUT,
	OPT_TRACE_COLUMN,
	OPT_THREADS,
	OPT_MODULES,
	OPT_VALUE,
	OPT_KERNEL_FRAMES,
	OPT_PYTHON,
	OPT_NO_CONFIG,
	OPT_LEGACY_COLUMNS,
	OPT_CALLS_OF,
};

#define BOTH (OSC_TREE_MODE_TREE | OSC_TREE_MODE_KERNELS)
#define ALL (BOTH | OSC_TREE_MODE_FLAME)

static const struct osc_cli_option tree_options[] = {
	{ OPT_RUNS, "runs", 'r', "SPEC", "runs to use (default: all but an ORT warm-up run 0)",
	  ALL },
	{ OPT_RUN_RANGE, "run-range", 0, "RE[/N]",
	  "runs are the NVTX ranges named by RE (the Nth only with /N)", ALL },
	{ OPT_WHOLE_TRACE, "whole-trace", 'W', NULL,
	  "one run spanning the whole trace (run markers ignored)", ALL },
	{ OPT_NO_DEMANGLE, "no-demangle", 0, NULL, "show kernel names as in the trace (mangled)",
	  ALL },
	{ OPT_SHORT_NAMES, "short-names", 0, NULL,
	  "kernel names without templates and parameters, a row per short name", ALL },
	{ OPT_DEMANGLER, "demangler", 0, "CMD",
	  "demangle kernel names with CMD, e.g. c++filt (default: libiberty)", ALL },
	{ OPT_FILTER, "filter", 'f', "PAT",
	  "keep paths through names matching PAT, exact or wildcard (repeatable)", ALL },
	{ OPT_REGEX, "regex", 'e', "RE", "keep paths through names matching the regex RE", ALL },
	{ OPT_CALLS_OF, "calls-of", 0, "PAT",
	  "only the subtrees of calls of ops matching PAT by name or op type (repeatable)", ALL },
	{ OPT_MODULES, "modules", 'M', NULL,
	  "the nn.Module hierarchy (python_function 'nn.Module: X' events) instead",
	  OSC_TREE_MODE_TREE },
	{ OPT_VALUE, "value", 0, "WHAT",
	  "host: self host time (default); device: device time at the launching op's stack",
	  OSC_TREE_MODE_FLAME },
	{ OPT_KERNEL_FRAMES, "kernels", 'k', NULL,
	  "with --value device: each kernel's name as the leaf frame", OSC_TREE_MODE_FLAME },
	{ OPT_PYTHON, "python", 'p', NULL,
	  "python_function events are frames too (ops and python calls nested by time)",
	  OSC_TREE_MODE_FLAME },
	{ OPT_MIN_DEPTH, "min-depth", 0, "N", "show nodes at depth N or more (roots: 0)",
	  OSC_TREE_MODE_TREE },
	{ OPT_MAX_DEPTH, "max-depth", 0, "N", "show nodes at depth N or less (default: all)",
	  OSC_TREE_MODE_TREE },
	{ OPT_FORMAT, "format", 'F', "FMT",
	  "output format: text (default), csv, tsv, json or markdown", BOTH },
	{ OPT_LEGACY_COLUMNS, "legacy-columns", 0, NULL,
	  "profile_parser_main's column titles, times in ms (default: report's, in us)", BOTH },
	{ OPT_TRACE_COLUMN, "trace-column", 0, NULL,
	  "a last column 'trace': the trace as given, to join files (not the text)", BOTH },
	{ OPT_HOST_CAT, "host-cat", 0, "CATS",
	  "launch categories, comma-separated (default: runtime calls)", ALL },
	{ OPT_DEVICE_CAT, "device-cat", 0, "CATS",
	  "device categories (default: kernels, memcpy, memset)", ALL },
	{ OPT_MONITOR_CAT, "ops", 0, "CATS",
	  "ops are the events of these categories, e.g. cpu_op,python_function (default: ops)",
	  ALL },
	{ OPT_MONITOR_CAT, "monitor-cat", 0, "CATS", "the same as --ops", ALL },
	{ OPT_CSV_SAFE, "csv-safe", 0, NULL,
	  "CSV for spreadsheets: cells that look like formulas (= + - @) get a leading '",
	  BOTH },
	{ OPT_MAX_INPUT, "max-input", 0, "SIZE",
	  "gz, zst or stdin may expand to SIZE at most, e.g. 64G (0: no limit; default 4x RAM)",
	  ALL },
	{ OPT_THREADS, "threads", 'j', "N",
	  "use at most N threads (0, the default: every CPU this process may use)", ALL },
	{ OPT_OUTPUT, "output", 'o', "FILE",
	  "write to FILE (atomically); with no --format, its extension (.csv .tsv .json .md) "
	  "picks it", BOTH },
	{ OPT_OUTPUT, "output", 'o', "FILE", "write to FILE (atomically) instead of stdout",
	  OSC_TREE_MODE_FLAME },
	{ OPT_FORCE, "force", 0, NULL,
	  "replace an existing output file (keeping its mode, through a symlink)",
	  ALL },
	{ OPT_NO_CONFIG, "no-config", 0, NULL,
	  "ignore the configuration file (~/.config/opscope/config)", ALL },
	{ OPT_HELP, "help", 'h', NULL, "show this help and exit", ALL },
	{ 0, NULL, 0, NULL, NULL, 0 },
};

void osc_cli_tree_print_options(unsigned mode)
{
	osc_cli_print_options(stdout, tree_options, mode);
}

static enum osc_status parse_depth(const char *opt, const char *s, long *out,
				   struct osc_error *err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (!*s || *end || errno || n < 0 || n > 100000)
		return osc_error_set(err, OSC_USAGE, opt, OSC_NO_OFFSET, NULL,
				     "not a depth (0 or more): '%s'", s);
	*out = n;
	return OSC_OK;
}

static enum osc_status tree_option(struct osc_cli_tree *o, int id, const char *arg,
				   struct osc_error *err)
{
	switch (id) {
	case OPT_RUNS:
		o->runs = arg;
		return OSC_OK;
	case OPT_RUN_RANGE:
		o->run_range = arg;
		return OSC_OK;
	case OPT_WHOLE_TRACE:
		o->whole = true;
		return OSC_OK;
	case OPT_NO_DEMANGLE:
		o->names = OSC_NAMES_MANGLED;
		return OSC_OK;
	case OPT_SHORT_NAMES:
		o->names = OSC_NAMES_SHORT;
		return OSC_OK;
	case OPT_DEMANGLER:
		o->demangler = arg;
		return OSC_OK;
	case OPT_FILTER:
		osc_filter_add_pattern(&o->filter, arg);
		return OSC_OK;
	case OPT_REGEX:
		return osc_filter_set_regex(&o->filter, arg, err);
	case OPT_CALLS_OF:
		osc_filter_add_pattern(&o->calls_of, arg);
		return OSC_OK;
	case OPT_MIN_DEPTH:
		return parse_depth("--min-depth", arg, &o->min_depth, err);
	case OPT_MAX_DEPTH:
		return parse_depth("--max-depth", arg, &o->max_depth, err);
	case OPT_FORMAT:
		o->format_given = true;
		if (!strcmp(arg, "text")) {
			o->format = OSC_EXPORT_TABLE;
			return OSC_OK;
		}
		return osc_export_format_parse(arg, &o->format, err);
	case OPT_HOST_CAT:
		o->host_cat = arg;
		return OSC_OK;
	case OPT_DEVICE_CAT:
		o->device_cat = arg;
		return OSC_OK;
	case OPT_MONITOR_CAT:
		o->monitor_cat = arg;
		return OSC_OK;
	case OPT_OUTPUT:
		o->output = arg;
		return OSC_OK;
	case OPT_CSV_SAFE:
		o->export_flags |= OSC_EXPORT_CSV_SAFE;
		return OSC_OK;
	case OPT_FORCE:
		o->export_flags |= OSC_WRITE_REPLACE;
		return OSC_OK;
	case OPT_NO_CONFIG: /* main.c read no configuration */
		return OSC_OK;
	case OPT_LEGACY_COLUMNS:
		o->legacy = true;
		return OSC_OK;
	case OPT_MAX_INPUT:
		return osc_cli_parse_size(arg, &o->max_input, err);
	case OPT_TRACE_COLUMN:
		o->trace_column = true;
		return OSC_OK;
	case OPT_THREADS:
		return osc_cli_parse_threads(arg, "--threads", err);
	case OPT_MODULES:
		o->modules = true;
		return OSC_OK;
	case OPT_VALUE:
		if (strcmp(arg, "host") && strcmp(arg, "device"))
			return osc_error_set(err, OSC_USAGE, "--value", OSC_NO_OFFSET, NULL,
					     "not host or device: '%s'", arg);
		o->device_value = !strcmp(arg, "device");
		return OSC_OK;
	case OPT_KERNEL_FRAMES:
		o->kernel_frames = true;
		return OSC_OK;
	case OPT_PYTHON:
		o->python = true;
		return OSC_OK;
	default:
		o->help = true;
		return OSC_OK;
	}
}

enum osc_status osc_cli_tree_parse(struct osc_cli_tree *o, int argc, char **argv, unsigned mode,
				   struct osc_error *err)
{
	struct osc_cli_parser p;
	int id;

	memset(o, 0, sizeof(*o));
	if (osc_cli_config.has_names)
		o->names = osc_cli_config.names;
	o->max_depth = -1;
	o->format = OSC_EXPORT_TABLE;
	osc_filter_init(&o->filter);
	osc_filter_init(&o->calls_of);
	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, tree_options, mode, err)) != OSC_CLI_DONE) {
		if (id == OSC_CLI_ERROR)
			return err->code;
		if (id == OSC_CLI_OPERAND) {
			if (o->path)
				return osc_error_set(err, OSC_USAGE, p.arg, OSC_NO_OFFSET, NULL,
						     "unexpected argument: one trace at a time");
			o->path = p.arg;
			continue;
		}
		if (tree_option(o, id, p.arg, err) != OSC_OK)
			return err->code;
		if (o->help)
			return OSC_OK;
	}
	if (o->output && !o->format_given && (mode & BOTH)) /* flame writes folded stacks */
		osc_export_format_of_name(o->output, &o->format);
	if (o->max_depth >= 0 && o->min_depth > o->max_depth)
		return osc_error_set(err, OSC_USAGE, "--min-depth", OSC_NO_OFFSET, NULL,
				     "%ld is above --max-depth %ld", o->min_depth, o->max_depth);
	if (o->trace_column && o->format == OSC_EXPORT_TABLE)
		return osc_error_set(err, OSC_USAGE, "--trace-column", OSC_NO_OFFSET, NULL,
				     "needs --format csv, tsv, json or markdown");
	if (o->kernel_frames && !o->device_value)
		return osc_error_set(err, OSC_USAGE, "--kernels", OSC_NO_OFFSET, NULL,
				     "needs --value device");
	if (o->modules && !osc_filter_is_empty(&o->calls_of))
		return osc_error_set(err, OSC_USAGE, "--calls-of", OSC_NO_OFFSET, NULL,
				     "not with --modules: the module tree has no calls of ops");
	if (o->modules && (o->host_cat || o->device_cat || o->legacy))
		return osc_error_set(err, OSC_USAGE,
				     o->host_cat ? "--host-cat" : o->device_cat ? "--device-cat"
								: "--legacy-columns",
				     OSC_NO_OFFSET, NULL, "not with --modules: the module tree "
				     "has no launches and report's columns");
	if (o->python && o->monitor_cat)
		return osc_error_set(err, OSC_USAGE, "--python", OSC_NO_OFFSET, NULL,
				     "not with --ops: list python_function in --ops instead");
	o->kernel_names = (mode & OSC_TREE_MODE_KERNELS) || o->format != OSC_EXPORT_TABLE ||
			  o->kernel_frames;
	return OSC_OK;
}

void osc_cli_tree_release(struct osc_cli_tree *o)
{
	osc_filter_release(&o->filter);
	osc_filter_release(&o->calls_of);
	memset(o, 0, sizeof(*o));
}

/* --calls-of matched no call: say so, with the op the first pattern likely meant. */
static enum osc_status no_calls_of(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				   struct osc_error *err)
{
	uint64_t *seen = osc_xcalloc(osc_bits_words(d->trace.strs.count), sizeof(*seen));
	const char **ops = osc_xcalloc(d->tree.nr + 1, sizeof(*ops));
	char *what = osc_filter_describe(&o->calls_of);
	const char *meant;
	size_t n = 0;

	for (uint32_t k = 0; k < d->tree.nr; k++) { /* each op key once */
		osc_str op = osc_trace_op(&d->trace, d->tree.nodes[k].event);

		if (!osc_bit(seen, op)) {
			osc_bit_put(seen, op, true);
			ops[n++] = osc_trace_str(&d->trace, op);
		}
	}
	meant = osc_suggest(o->calls_of.patterns[0], ops, n);
	osc_error_set(err, OSC_USAGE, "--calls-of", OSC_NO_OFFSET, NULL,
		      "no op called in the runs used matches '%s'%s%s%s", what,
		      meant ? " (did you mean " : "", meant ? meant : "", meant ? "?)" : "");
	free(what);
	free(ops);
	free(seen);
	return OSC_USAGE;
}

/* d->m: the merged subtrees of the calls of the ops o->calls_of matches. */
static enum osc_status merge_calls_of(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				      struct osc_error *err)
{
	uint64_t *roots = osc_xcalloc(osc_bits_words(d->tree.nr), sizeof(*roots));
	struct osc_tree_index x;

	if (!osc_calltree_mark_matching(&d->trace, &d->tree, &d->runs, &d->sel, &o->calls_of,
					roots)) {
		free(roots);
		return no_calls_of(o, d, err);
	}
	osc_tree_index_build(&d->tree, &d->corr, &x);
	osc_mtree_build_subtree(&d->trace, &d->tree, &d->corr, &x, &d->runs, &d->sel, roots,
				&d->m);
	osc_tree_index_release(&x);
	free(roots);
	return OSC_OK;
}

enum osc_status osc_cli_tree_load(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				  struct osc_error *err)
{
	struct osc_runs_opts ro = { .range = o->run_range, .whole = o->whole };
	enum osc_status st;
	char a[160], b[160], c[160];

	memset(d, 0, sizeof(*d));
	osc_trace_init(&d->trace);
	osc_names_init(&d->names);
	st = osc_cli_load(o->path, o->max_input, &d->trace, err);
	if (st == OSC_OK && o->modules) /* the module level's ops, as report --by module's */
		st = osc_cli_select_ops(&d->trace, o->monitor_cat, err);
	if (st != OSC_OK)
		return st;
	st = osc_runs_detect_opts(&d->trace, &ro, &d->runs, err);
	if (st != OSC_OK)
		return st;
	st = osc_runsel_parse(o->runs, d->runs.nr, d->runs.warmup, &d->sel, err);
	if (st == OSC_OK)
		st = osc_catsel_parse(&d->host, &d->trace, o->monitor_cat,
				      OSC_CATSEL_HOST_DEFAULT |
					      (o->python ? OSC_KIND_BIT(PYTHON) : 0),
				      "--ops", err);
	if (st == OSC_OK)
		st = osc_catsel_parse(&d->launch, &d->trace, o->host_cat,
				      OSC_CATSEL_LAUNCH_DEFAULT, "--host-cat", err);
	if (st == OSC_OK)
		st = osc_catsel_parse(&d->device, &d->trace, o->device_cat,
				      OSC_CATSEL_DEVICE_DEFAULT, "--device-cat", err);
	if (st == OSC_OK)
		st = osc_cli_names(&d->names, &d->trace, o->names, o->demangler,
				   o->kernel_names, err);
	if (st != OSC_OK)
		return st;
	osc_host_analysis(&d->trace, &d->host, &d->launch, &d->device, &d->tree, &d->corr);
	if (!osc_filter_is_empty(&o->calls_of))
		st = merge_calls_of(o, d, err);
	else
		osc_mtree_build(&d->trace, &d->tree, &d->corr, &d->runs, &d->sel, OSC_STR_NONE,
				&d->m);
	if (st != OSC_OK)
		return st;
	d->runs_text = osc_runsel_describe(&d->sel, &d->runs);
	d->runs_json = osc_cli_runs_json(&d->sel, &d->runs, d->runs_text);
	snprintf(d->cats_text, sizeof(d->cats_text), "ops: %s; launches: %s; device: %s",
		 osc_catsel_describe(&d->host, a, sizeof(a)),
		 osc_catsel_describe(&d->launch, b, sizeof(b)),
		 osc_catsel_describe(&d->device, c, sizeof(c)));
	return OSC_OK;
}

void osc_cli_tree_data_release(struct osc_cli_tree_data *d)
{
	free(d->runs_text);
	free(d->runs_json);
	osc_names_release(&d->names);
	osc_mtree_release(&d->m);
	osc_correlation_release(&d->corr);
	osc_calltree_release(&d->tree);
	osc_catsel_release(&d->host);
	osc_catsel_release(&d->launch);
	osc_catsel_release(&d->device);
	osc_runsel_release(&d->sel);
	osc_runs_release(&d->runs);
	osc_trace_release(&d->trace);
}

void osc_cli_tree_meta_init(struct osc_cli_tree_meta *m, const struct osc_cli_tree *o,
			    const struct osc_cli_tree_data *d, char *rows_text, char *rows_json)
{
	static const char *const keys[7] = { "trace",  "format", "runs",    "categories",
					     "filter", "rows",   "calls_of" };

	memset(m, 0, sizeof(*m));
	memcpy(m->keys, keys, sizeof(keys));
	m->filter_text = osc_filter_describe(&o->filter);
	m->calls_text = osc_filter_describe(&o->calls_of);
	m->rows_text = rows_text;
	m->rows_json = rows_json;
	m->values[0] = osc_cli_input_name(o->path);
	m->values[1] = osc_format_name(d->trace.format);
	m->values[2] = d->runs_text;
	m->values[3] = d->cats_text;
	m->values[4] = *m->filter_text ? m->filter_text : "none";
	m->values[5] = rows_text;
	m->values[6] = m->calls_text;
	m->json[2] = d->runs_json;
	m->json[5] = rows_json;
	m->meta = (struct osc_export_meta){ m->keys, m->values, *m->calls_text ? 7 : 6, m->json };
}

void osc_cli_tree_meta_release(struct osc_cli_tree_meta *m)
{
	free(m->filter_text);
	free(m->calls_text);
	free(m->rows_text);
	free(m->rows_json);
}

enum osc_status osc_cli_tree_write(const struct osc_cli_tree *o, const struct osc_table *t,
				   const struct osc_export_meta *meta, struct osc_error *err)
{
	struct osc_table_constant ctx;
	struct osc_table with;
	enum osc_status st;

	if (!o->trace_column)
		return osc_cli_write_table(o->output, o->format, t, meta, o->export_flags, err);
	osc_table_add_constant(&ctx, t, "trace", osc_cli_input_name(o->path), &with);
	st = osc_cli_write_table(o->output, o->format, &with, meta, o->export_flags, err);
	osc_table_constant_release(&ctx);
	return st;
}

/* ---- the drawn tree ---- */

/* Columns of the drawn tree, before the name (titles: report's, and in ms). */
static const struct {
	enum osc_tree_col col;
	const char *title, *legacy;
} drawn[] = {
	{ OSC_TREE_COL_HOST, "total_us", "total_ms" },
	{ OSC_TREE_COL_SELF, "self_us", "self_ms" },
	{ OSC_TREE_COL_DEVICE, "device_total_us", "device_ms" },
	{ OSC_TREE_COL_LAUNCH, "launch_total_us", "launch_ms" },
	{ OSC_TREE_COL_COUNT, "count", "count" },
	{ OSC_TREE_COL_KERNEL_COUNT, "kernels", "kernels" },
};

#define NR_DRAWN (sizeof(drawn) / sizeof(drawn[0]))

struct text_arg {
	const struct osc_cli_tree *o;
	const struct osc_cli_tree_data *d;
	const struct osc_tree_table_ctx *ctx;
	const uint8_t *last;
	const struct osc_export_meta *meta;
};

/* Why the trace's device events without an op have none (a line only when some lack one). */
static void print_unattributed(FILE *out, const struct osc_correlation *c)
{
	bool any = false;

	for (int u = OSC_UNATTRIBUTED_NONE + 1; u < OSC_UNATTRIBUTED_COUNT; u++) {
		if (!c->by_unattributed[u])
			continue;
		fprintf(out, "%s%s %llu",
			any ? ", " : "# device events no op launched in the trace, by reason: ",
			osc_unattributed_name((enum osc_unattributed)u),
			(unsigned long long)c->by_unattributed[u]);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

static void print_summary(FILE *out, const struct osc_cli_tree_data *d)
{
	const struct osc_correlation *c = &d->corr;

	fprintf(out, "# device events: %zu (", c->nr_devs);
	for (int m = 1; m < OSC_LINK_COUNT; m++)
		if (c->by_method[m])
			fprintf(out, "%s %llu, ", osc_link_name((enum osc_link)m),
				(unsigned long long)c->by_method[m]);
	fprintf(out, "no link %llu); launched outside any op: %llu; held by <unattributed>: %llu\n",
		(unsigned long long)c->by_method[OSC_LINK_NONE], (unsigned long long)c->no_host,
		d->m.unattributed != OSC_NONE
			? (unsigned long long)d->m.nodes[d->m.unattributed].kernels_total
			: 0ULL);
	print_unattributed(out, c);
	fprintf(out, "# host ops: %zu in %llu trees, %llu partial overlaps not nested\n",
		d->tree.nr, (unsigned long long)d->tree.nr_roots,
		(unsigned long long)d->tree.nr_overlaps);
}

static enum osc_status text_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct text_arg *a = arg;
	const struct osc_tree_table_ctx *ctx = a->ctx;
	bool utf8 = osc_locale_is_utf8();
	int width = osc_cli_width(!a->o->output || !strcmp(a->o->output, "-"));
	int w[NR_DRAWN];
	char buf[128], guide[4096], fit[8192];

	(void)err;
	for (size_t i = 0; i < a->meta->nr; i++) {
		/* Whole, the characters a terminal must not get shown as '?' (export.h). */
		osc_text_fit(a->meta->values[i], strlen(a->meta->values[i]), (size_t)-1, utf8, fit,
			     sizeof(fit));
		fprintf(out, "# %s: %s\n", a->meta->keys[i], fit);
	}
	print_summary(out, a->d);
	for (size_t c = 0; c < NR_DRAWN; c++) {
		w[c] = (int)strlen((ctx->us ? drawn[c].title : drawn[c].legacy));
		for (size_t r = 0; r < ctx->nr_rows; r++) {
			int n = (int)strlen(osc_tree_cell(ctx, r, drawn[c].col, buf, sizeof(buf)));

			w[c] = n > w[c] ? n : w[c];
		}
		fprintf(out, "%*s  ", w[c], (ctx->us ? drawn[c].title : drawn[c].legacy));
	}
	fputs("name\n", out);
	for (size_t r = 0; r < ctx->nr_rows; r++) {
		uint32_t n = ctx->rows[r];
		const char *name = osc_mnode_name(ctx->tree, ctx->trace, n);
		int used = 0;
		size_t room, gl;

		for (size_t c = 0; c < NR_DRAWN; c++)
			used += fprintf(out, "%*s  ", w[c],
					osc_tree_cell(ctx, r, drawn[c].col, buf, sizeof(buf)));
		gl = osc_mtree_guide(ctx->tree, a->last, n, (uint32_t)a->o->min_depth, utf8, guide,
				     sizeof(guide));
		fputs(guide, out);
		used += (int)osc_text_width(guide, gl, utf8);
		room = width > used + 8 ? (size_t)(width - used) : 8;
		osc_text_fit(name, strlen(name), room, utf8, fit, sizeof(fit));
		fprintf(out, "%s\n", fit);
	}
	return ferror(out) ? osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL,
					   "cannot write") : OSC_OK;
}

/* ---- the module tree (--modules) ---- */

struct module_tree {
	const struct osc_cli_tree *o;
	const struct osc_cli_tree_data *d;
	const struct osc_modules *m;
	struct osc_agg agg;      /* the module level, rows reordered to order */
	uint32_t *order;         /* kept nodes in preorder; row i is order[i]'s */
	size_t nr;
	uint8_t *last;           /* per node: no kept sibling after it */
	const struct osc_export_meta *meta;
};

/* The kept nodes in preorder (children in order of first appearance) into mt->order. */
static void module_order(struct module_tree *mt, const uint8_t *keep)
{
	const struct osc_modules *m = mt->m;

	mt->order = osc_xmalloc((m->nr ? m->nr : 1) * sizeof(*mt->order));
	mt->last = osc_xcalloc(m->nr ? m->nr : 1, 1);
	for (uint32_t n = m->first_root; n != OSC_NONE; n = osc_modules_next(m, n, true))
		if (keep[n])
			mt->order[mt->nr++] = n;
	osc_modules_last(m, keep, mt->last);
}

static enum osc_status module_text_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct module_tree *mt = arg;
	const struct osc_agg *a = &mt->agg;
	bool utf8 = osc_locale_is_utf8();
	int width = osc_cli_width(!mt->o->output || !strcmp(mt->o->output, "-"));
	int *w = osc_xcalloc(a->nr_cols ? a->nr_cols : 1, sizeof(*w));
	char buf[128], guide[4096], fit[8192], us[64];

	for (size_t i = 0; i < mt->meta->nr; i++) {
		osc_text_fit(mt->meta->values[i], strlen(mt->meta->values[i]), (size_t)-1, utf8,
			     fit, sizeof(fit));
		fprintf(out, "# %s: %s\n", mt->meta->keys[i], fit);
	}
	if (a->has_device) {
		osc_format_us_int(a->outside_modules, us, sizeof(us));
		fprintf(out, "# device_us outside every module: %s (device_us of the rows + this ="
			" device_time_us; device_total_us holds its subtree's)\n", us);
	}
	for (size_t c = 0; c < a->nr_cols; c++) {
		w[c] = (int)strlen(a->cols[c].title);
		for (size_t r = 0; r < a->nr; r++) {
			int n = (int)strlen(osc_agg_cell(&mt->d->trace, a, r, c, buf, sizeof(buf)));

			w[c] = n > w[c] ? n : w[c];
		}
		fprintf(out, "%*s  ", w[c], a->cols[c].title);
	}
	fputs("module\n", out);
	for (size_t r = 0; r < a->nr; r++) {
		const char *name = osc_module_name(mt->m, mt->order[r]);
		int used = 0;
		size_t room;

		for (size_t c = 0; c < a->nr_cols; c++)
			used += fprintf(out, "%*s  ", w[c],
					osc_agg_cell(&mt->d->trace, a, r, c, buf, sizeof(buf)));
		osc_modules_guide(mt->m, mt->last, mt->order[r], (uint32_t)mt->o->min_depth, utf8,
				  guide, sizeof(guide));
		fputs(guide, out);
		used += (int)osc_text_width(guide, strlen(guide), utf8);
		room = width > used + 8 ? (size_t)(width - used) : 8;
		osc_text_fit(name, strlen(name), room, utf8, fit, sizeof(fit));
		fprintf(out, "%s\n", fit);
	}
	free(w);
	return ferror(out) ? osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL,
					   "cannot write") : OSC_OK;
}

/*
 * tree --modules: the module level (over the selected runs, unfiltered), its
 * rows in the hierarchy's preorder; the filter keeps paths through a module
 * whose event name matches, as the call tree's keeps paths through an op.
 */
static enum osc_status run_modules(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				   struct osc_error *err)
{
	struct module_tree mt = { .o = o, .d = d, .m = osc_trace_modules(&d->trace) };
	struct osc_query q = { .level = OSC_LEVEL_MODULE, .runs = &d->sel };
	const char *keys[] = { "trace", "format", "runs", "filter", "rows", "host_busy_us",
			       "device_time_us" };
	const char *values[7], *json[7] = { [2] = d->runs_json };
	struct osc_export_meta meta = { keys, values, 7, json };
	struct osc_column *cols = NULL;
	size_t nr_cols, *row_of, n = mt.m->nr ? mt.m->nr : 1;
	struct osc_agg_row *rows;
	uint8_t *keep;
	char *filter_text, *rows_text, *rows_json, busy[64], device[64];
	enum osc_status st;

	if (!mt.m->nr_inst)
		fprintf(stderr, "opscope: note: no nn.Module events in the trace (PyTorch's "
			"profiler writes them with with_stack=True or with_modules=True)\n");
	osc_aggregate(&d->trace, &d->runs, &q, &mt.agg);
	st = osc_columns_parse(OSC_LEVEL_MODULE,
			       o->format == OSC_EXPORT_TABLE ?
			       (mt.agg.has_device ? "count,total_us,self_us,self_pct,device_us,"
						    "device_pct,device_total_us,kernels"
						  : "count,total_us,self_us,self_pct")
			       : (mt.agg.has_device ? "name,count,total_us,self_us,self_pct,"
						      "device_us,device_pct,device_total_us,kernels"
						    : "name,count,total_us,self_us,self_pct"),
			       &cols, &nr_cols, err);
	if (st != OSC_OK) {
		osc_agg_release(&mt.agg);
		return st;
	}
	osc_agg_set_columns(&mt.agg, cols, nr_cols);
	row_of = osc_xmalloc(n * sizeof(*row_of));
	keep = osc_xmalloc(n);
	for (size_t i = 0; i < mt.m->nr; i++)
		row_of[i] = SIZE_MAX;
	for (size_t r = 0; r < mt.agg.nr; r++)
		row_of[mt.agg.rows[r].module] = r;
	for (size_t i = 0; i < mt.m->nr; i++)
		keep[i] = row_of[i] != SIZE_MAX;
	osc_modules_keep(mt.m, &o->filter, keep, (int)o->min_depth, (int)o->max_depth, keep);
	module_order(&mt, keep);
	rows = osc_xmalloc((mt.nr ? mt.nr : 1) * sizeof(*rows));
	for (size_t i = 0; i < mt.nr; i++)
		rows[i] = mt.agg.rows[row_of[mt.order[i]]];
	free(mt.agg.rows);
	mt.agg.rows = rows;
	mt.agg.nr = mt.nr;
	filter_text = osc_filter_describe(&o->filter);
	rows_text = osc_xasprintf("%zu of %zu", mt.nr, mt.m->nr);
	rows_json = osc_cli_rows_json(mt.nr, mt.m->nr, "");
	json[4] = rows_json;
	osc_format_us_int(mt.agg.host_busy, busy, sizeof(busy));
	osc_format_us_int(mt.agg.device_time, device, sizeof(device));
	values[0] = osc_cli_input_name(o->path);
	values[1] = osc_format_name(d->trace.format);
	values[2] = d->runs_text;
	values[3] = *filter_text ? filter_text : "none";
	values[4] = rows_text;
	values[5] = busy;
	values[6] = device;
	meta.nr = mt.agg.has_device ? 7 : 6;
	mt.meta = &meta;
	if (o->format == OSC_EXPORT_TABLE) {
		st = osc_write_file(o->output, o->export_flags, module_text_fn, &mt, err);
	} else {
		struct osc_agg_table_ctx ctx = { &d->trace, &mt.agg, NULL };
		struct osc_table table;

		osc_agg_table(&ctx, &table);
		st = osc_cli_tree_write(o, &table, &meta, err);
		if (st == OSC_OK && !osc_export_has_meta(o->format))
			fprintf(stderr, "opscope: using %s\n", d->runs_text);
	}
	free(filter_text);
	free(rows_text);
	free(rows_json);
	free(row_of);
	free(keep);
	free(mt.order);
	free(mt.last);
	osc_agg_release(&mt.agg);
	return st;
}

static void print_help(void)
{
	puts("usage: opscope tree [OPTIONS] [TRACE]\n"
	     "\n"
	     "The host call tree of TRACE with identical call paths merged across instances\n"
	     "and runs: host time (total and self), the device time of the kernels each path\n"
	     "launched (its subtree's), the time of its runtime calls, and instance counts.\n"
	     "Kernels are tied to ops by correlation id, flow events, External id, ORT op\n"
	     "name, or else by the time window of the launch; unattributed ones are shown\n"
	     "under <unattributed>. CSV has profile_parser_main's columns ($$-joined path,\n"
	     "host/device/launch time, cuda_runtime, kernels, kernel infos), then more,\n"
	     "named as report's in us (total_us, device_total_us, launch_total_us, ...;\n"
	     "--legacy-columns: the seed's titles in ms, 'host duration (ms)' ...); C++\n"
	     "kernel names are shown demangled there.\n"
	     "With --calls-of: only the merged subtrees of the calls of those ops, wherever\n"
	     "they are called from (the explorer's T on an op row).\n"
	     "With --modules: the nn.Module hierarchy of a PyTorch trace recorded with\n"
	     "with_stack or with_modules, with report --by module's measures.\n"
	     "\n"
	     "options:");
	osc_cli_tree_print_options(OSC_TREE_MODE_TREE);
	puts("\n"
	     "CATS: category names as in the trace, comma-separated (cpu_op, python_function,\n"
	     "user_annotation, cuda_runtime, kernel, gpu_memcpy ...).\n"
	     "Exit status: 0 on success, 2 on any error.");
}

static enum osc_status run_tree(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				struct osc_error *err)
{
	struct osc_tree_scratch scratch = { 0 };
	uint8_t *keep, *last;
	uint32_t *rows;
	struct osc_tree_table_ctx ctx;
	struct osc_table table;
	struct osc_cli_tree_meta mt;
	size_t n = d->m.nr ? d->m.nr : 1;
	enum osc_status st;

	keep = osc_xmalloc(n);
	last = osc_xmalloc(n);
	rows = osc_xmalloc(n * sizeof(*rows));
	osc_mtree_keep(&d->m, &d->trace, &o->filter, (int)o->min_depth, (int)o->max_depth, keep);
	osc_mtree_last(&d->m, keep, last);
	ctx = (struct osc_tree_table_ctx){
		.trace = &d->trace,
		.tree = &d->m,
		.corr = &d->corr,
		.rows = rows,
		.nr_rows = osc_mtree_preorder(&d->m, keep, rows),
		.paths = o->format != OSC_EXPORT_TABLE,
		.decimals = o->format == OSC_EXPORT_TABLE ? 3 : 6,
		.us = !o->legacy,
		.scratch = &scratch,
		.names = &d->names,
	};
	osc_cli_tree_meta_init(&mt, o, d, osc_xasprintf("%zu of %zu", ctx.nr_rows, d->m.nr),
			       osc_cli_rows_json(ctx.nr_rows, d->m.nr, ""));
	if (o->format == OSC_EXPORT_TABLE) {
		struct text_arg a = { o, d, &ctx, last, &mt.meta };

		st = osc_write_file(o->output, o->export_flags, text_fn, &a, err);
	} else {
		osc_tree_table(&ctx, &table);
		st = osc_cli_tree_write(o, &table, &mt.meta, err);
		if (st == OSC_OK && !osc_export_has_meta(o->format))
			fprintf(stderr, "opscope: using %s\n", d->runs_text);
	}
	osc_cli_tree_meta_release(&mt);
	osc_tree_scratch_release(&scratch);
	free(keep);
	free(last);
	free(rows);
	return st;
}

static enum osc_status run_tree_or_modules(const struct osc_cli_tree *o,
					   struct osc_cli_tree_data *d, struct osc_error *err)
{
	return o->modules ? run_modules(o, d, err) : run_tree(o, d, err);
}

int osc_cli_tree_main(int argc, char **argv, unsigned mode, void (*help)(void),
		      osc_cli_tree_fn run)
{
	struct osc_cli_tree o;
	struct osc_cli_tree_data d;
	struct osc_error err;
	enum osc_status st;

	osc_error_clear(&err);
	st = osc_cli_tree_parse(&o, argc, argv, mode, &err);
	if (st == OSC_OK && o.help) {
		help();
		osc_cli_tree_release(&o);
		return OSC_EXIT_OK;
	}
	if (st == OSC_OK) {
		st = osc_cli_tree_load(&o, &d, &err);
		if (st == OSC_OK)
			st = run(&o, &d, &err);
		osc_cli_tree_data_release(&d);
	}
	osc_cli_tree_release(&o);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}

int osc_cmd_tree(int argc, char **argv)
{
	return osc_cli_tree_main(argc, argv, OSC_TREE_MODE_TREE, print_help, run_tree_or_modules);
}
