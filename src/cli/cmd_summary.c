/*
 * cmd_summary.c - `opscope summary TRACE... -o OUT`: each rank's trace
 * reduced to its summary (summary.h) and written as a summary file
 * (load/summary_file.h), so a job's analysis needs no raw trace: run it
 * where the traces live, one process per rank, and open the directory of
 * summaries as a job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opscope/analysis/job.h"
#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"
#include "opscope/export/summary_write.h"
#include "cli.h"

#define SUMMARY 1u

static const struct osc_cli_option summary_options[] = {
	OSC_CLI_TRACE_RUN_OPTIONS(SUMMARY, "the runs each summary keeps (default: every run; "
				  "select among them when reading it)"),
	OSC_CLI_TRACE_OUTPUT_OPTIONS(SUMMARY, "the summary file (one trace; default: stdout), or "
				     "a directory for several"),
	{ 0, NULL, 0, NULL, NULL, 0 },
};

static void print_help(void)
{
	puts("usage: opscope summary [OPTIONS] TRACE [-o FILE]\n"
	     "       opscope summary [OPTIONS] TRACE... | DIR -o DIR\n"
	     "\n"
	     "Reduce each rank's trace to a compact summary file: every level's rows per run,\n"
	     "each run's window and GPU breakdown, the collective calls (CSV, the format in\n"
	     "'man opscope', SUMMARY FILES). Run it where the traces live, one process per\n"
	     "rank, then open the directory of summaries as a job: 'opscope report --by rank\n"
	     "DIR'. With several traces (or a directory) each summary goes into the\n"
	     "directory -o names, as NAME.csv for the trace NAME.json[.gz|.zst] or\n"
	     "NAME.sqlite. A summary holds every level's rows for each run it keeps: a\n"
	     "trace of hundreds of steps makes a large one, --runs keeps some (--runs -8:).\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, summary_options, SUMMARY);
	puts("\n"
	     "Example: srun opscope summary -o sums/ \"trace_rank$SLURM_PROCID.json.gz\"\n"
	     "Exit status: 0 on success, 2 on any error.");
}

struct summary_args {
	struct osc_cli_trace_args a;
	const char **inputs;
	size_t nr, alloc;
};

static enum osc_status parse(struct summary_args *a, int argc, char **argv,
			     struct osc_error *err)
{
	struct osc_cli_parser p;
	enum osc_status st;
	int id;

	osc_cli_parser_init(&p, argc, argv);
	while ((id = osc_cli_next(&p, summary_options, SUMMARY, err)) != OSC_CLI_DONE) {
		if (id == OSC_CLI_ERROR)
			return err->code;
		if (id == OSC_CLI_OPERAND) {
			OSC_GROW(a->inputs, a->nr + 1, a->alloc);
			a->inputs[a->nr++] = p.arg;
			continue;
		}
		osc_cli_trace_option(id, p.arg, &a->a, &st, err);
		if (st != OSC_OK || a->a.help)
			return st;
	}
	if (!a->nr)
		return osc_error_set(err, OSC_USAGE, "summary", OSC_NO_OFFSET, NULL,
				     "no trace given");
	return OSC_OK;
}

static enum osc_status write_one(FILE *out, const void *arg, struct osc_error *err)
{
	const struct osc_summary *s = arg;

	return osc_summary_write(s, out, s->path, err);
}

/* DIR/NAME.csv for the input path NAME.json[.gz|.zst], NAME.sqlite... */
static char *output_name(const char *dir, const char *path)
{
	static const char *const ends[] = { ".gz", ".zst", ".json", ".sqlite3", ".sqlite", ".csv" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *stem = osc_xstrdup(base), *name;
	bool cut = true;

	while (cut) {
		size_t n = strlen(stem);

		cut = false;
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			size_t m = strlen(ends[i]);

			if (n > m && !strcmp(stem + n - m, ends[i])) {
				stem[n - m] = '\0';
				cut = true;
				break;
			}
		}
	}
	name = osc_xasprintf("%s%s%s.csv", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", stem);
	free(stem);
	return name;
}

static enum osc_status write_all(const struct summary_args *a, const struct osc_job *job,
				 bool many, struct osc_error *err)
{
	char **names = osc_xcalloc(job->nr ? job->nr : 1, sizeof(*names));
	enum osc_status st = OSC_OK;
	struct stat sb;

	if (many && (!a->a.output || !strcmp(a->a.output, "-")))
		st = osc_error_set(err, OSC_USAGE, "-o", OSC_NO_OFFSET, NULL,
				   "several traces need an output directory (-o DIR)");
	else if (many && mkdir(a->a.output, 0777) && (errno != EEXIST || stat(a->a.output, &sb) ||
						     !S_ISDIR(sb.st_mode)))
		st = osc_error_set(err, OSC_IO, a->a.output, OSC_NO_OFFSET, NULL,
				   "cannot be the output directory: %s",
				   errno == EEXIST ? "not a directory" : strerror(errno));
	for (size_t i = 0; st == OSC_OK && i < job->nr; i++) {
		names[i] = many ? output_name(a->a.output, job->ranks[i].path)
				: osc_xstrdup(a->a.output ? a->a.output : "-");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], names[i]))
				st = osc_error_set(err, OSC_USAGE, job->ranks[i].path, OSC_NO_OFFSET,
						   NULL, "its summary would be %s, as %s's is",
						   names[i], job->ranks[k].path);
	}
	for (size_t i = 0; st == OSC_OK && i < job->nr; i++)
		st = osc_write_file(names[i], a->a.flags, write_one, &job->ranks[i], err);
	for (size_t i = 0; i < job->nr; i++)
		free(names[i]);
	free(names);
	return st;
}

int osc_cmd_summary(int argc, char **argv)
{
	struct summary_args a;
	struct osc_job job = { 0 };
	struct osc_error err;
	enum osc_status st;
	bool many;

	memset(&a, 0, sizeof(a));
	osc_error_clear(&err);
	st = parse(&a, argc, argv, &err);
	if (st == OSC_OK && a.a.help) {
		print_help();
		free(a.inputs);
		return OSC_EXIT_OK;
	}
	if (st == OSC_OK) {
		struct stat sb;

		a.a.v.inputs = a.inputs;
		a.a.v.nr_inputs = a.nr;
		many = a.nr > 1 || (!stat(a.inputs[0], &sb) && S_ISDIR(sb.st_mode));
		st = osc_cli_load_job(&a.a.v, a.a.runs, 0, &job, &err);
		if (st == OSC_OK)
			st = write_all(&a, &job, many, &err);
	}
	osc_job_release(&job);
	free(a.inputs);
	return st == OSC_OK ? OSC_EXIT_OK : osc_cli_fail(&err);
}
