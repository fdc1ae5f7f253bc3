/*
 * main.c - `opscope [COMMAND] [OPTIONS] [TRACE]`: the command table and the
 * default mode.
 *
 * With no command, opscope opens the TUI when standard output is a terminal
 * (or --script is given) and prints `report` otherwise; an option that only
 * the report uses (--top, --sort, --asc, --format, -o) also selects the
 * report.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/analysis/columns.h"
#include "opscope/base/suggest.h"
#include "opscope/load/load.h"
#include "cli.h"
#include "config.h"
#include "opscope/analysis/job.h"
#include "tui.h"

static const struct osc_cli_command commands[] = {
	{ "info", osc_cmd_info, "describe a trace: format, sizes, events, threads, runs, warnings" },
	{ "report", osc_cmd_report,
	  "aggregate by op or kernel over the selected runs: table, CSV or JSON" },
	{ "explore", osc_cmd_explore,
	  "ORT profile_explorer's command line: top CPU/GPU kernels, op-kernel mapping" },
	{ "diff", osc_cmd_diff, "compare two traces: rows only in one, or changed, with deltas" },
	{ "whatif", osc_cmd_whatif, "project the latency if some ops were made faster" },
	{ "tree", osc_cmd_tree, "the merged host call tree with device and launch time per path" },
	{ "kernels", osc_cmd_kernels, "device kernels with the op stack that launched them" },
	{ "gpu", osc_cmd_gpu, "where the GPU's time goes: busy, idle and why, per run and stream" },
	{ "timeline", osc_cmd_timeline, "the selected runs drawn as lanes of time" },
	{ "flame", osc_cmd_flame, "folded stacks of the call tree for flame graph tools" },
	{ "slice", osc_cmd_slice, "write the selected runs as a Chrome trace other tools open" },
	{ "summary", osc_cmd_summary,
	  "reduce each rank's trace to a summary file a job can be opened from" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_help(void)
{
	puts("usage: opscope [COMMAND] [OPTIONS] [TRACE [OTHER]]\n"
	     "\n"
	     "Explore ML profiling traces (ONNX Runtime profiles, PyTorch/Kineto and other\n"
	     "Chrome trace-event files) in the terminal.\n"
	     "\n"
	     "commands:");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		printf("  %-8s %s\n", commands[i].name, commands[i].help);
	puts("\n"
	     "With no command, opscope opens the interactive explorer (TUI) when standard\n"
	     "output is a terminal (TERM set and not dumb), and prints the report otherwise;\n"
	     "--top, --sort, --asc, --format and -o also select the report. TRACE is a trace\n"
	     "file (plain, gzip or zstd) or - for standard input (the TUI then reads keys from\n"
	     "/dev/tty); with no TRACE the bundled sample trace is used.\n"
	     "With two traces, opscope compares TRACE (the base) with OTHER: the compare\n"
	     "view on a terminal, else the output of 'opscope diff'.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_DEFAULT);
	puts("\n"
	     "Run 'opscope COMMAND --help' for the options of a command, 'man opscope' for\n"
	     "the details (run selection, statistics, TUI keys).\n"
	     "Exit status: 0 on success, 1 when a compare printed with --changed has changed\n"
	     "rows (as 'opscope diff --changed'), 2 on any error.");
}

/* The version, then the libraries of this build (a bug report says which). */
static void print_version(void)
{
	struct osc_library libs[OSC_NR_LIBRARIES];

	osc_load_libraries(libs);
	puts("opscope " OPSCOPE_VERSION "\n"
	     "built with:");
	for (int i = 0; i < OSC_NR_LIBRARIES; i++)
		printf("  %-7s %-9s %s%s%s%s\n", libs[i].name,
		       libs[i].version[0] ? libs[i].version : "no", libs[i].reads,
		       libs[i].version[0] ? "" : " (", libs[i].version[0] ? "" : libs[i].without,
		       libs[i].version[0] ? "" : ")");
}

static int run_tui(const struct osc_cli_view *v, const struct osc_job *job)
{
	struct osc_tui_args a = {
		.path = v->path,
		.sample_data = osc_sample_data,
		.sample_size = osc_sample_size,
		.sample_name = osc_sample_name,
		.runs = v->runs,
		.run_range = v->run_range,
		.whole = v->whole_trace,
		.names = v->names,
		.demangler = v->demangler,
		.filters = v->filters,
		.nr_filters = v->nr_filters,
		.regex = v->regex,
		.ops = v->ops,
		.max_input = v->max_input,
		.categories = &v->categories,
		.peak_tflops = v->peak_tflops,
		.peak_tbs = v->peak_tbs,
		.level = v->level,
		.script = v->script,
		.other = v->other,
		.other_runs = v->other_runs,
		.match = v->match,
		.changed = v->changed,
		.min_change = v->min_change,
		.sort = v->sort,
		.no_color = osc_cli_config.no_color,
		.no_mouse = osc_cli_config.no_mouse,
		.job = job,
		.job_inputs = v->inputs,
		.nr_job_inputs = v->nr_inputs,
		.straggler = v->straggler,
		.ranks = v->ranks,
	};

	return osc_tui_main(&a);
}

/*
 * A job on a terminal: its ranks loaded here (a progress line each, before
 * the screen opens), then the explorer on its ranks view; the report where
 * the terminal cannot show it.
 */
static int run_job_tui(struct osc_cli_view *v)
{
	struct osc_job job = { 0 };
	struct osc_error err;
	int rc;

	osc_error_clear(&err);
	if (v->split_rank || v->by_rank) /* a table of the job's asked for: print it */
		return osc_report_run(v);
	if (osc_cli_load_job(v, NULL, 0, &job, &err) != OSC_OK)
		return osc_cli_fail(&err);
	rc = run_tui(v, &job);
	osc_job_release(&job);
	if (rc == OSC_TUI_NO_TERMINAL)
		rc = osc_report_run(v);
	return rc;
}

static int default_mode(int argc, char **argv)
{
	struct osc_cli_view v;
	struct osc_error err;
	int rc;

	osc_error_clear(&err);
	if (osc_cli_view_parse(&v, argc, argv, OSC_MODE_DEFAULT, &err) != OSC_OK) {
		osc_cli_view_release(&v);
		return osc_cli_fail(&err);
	}
	if (v.help)
		print_help();
	else if (v.version)
		print_version();
	if (v.help || v.version) {
		rc = OSC_EXIT_OK;
	} else if (osc_cli_view_is_job(&v)) {
		rc = (v.script || (!v.report_only && isatty(STDOUT_FILENO))) ? run_job_tui(&v)
									     : osc_report_run(&v);
	} else if (v.script || (!v.report_only && isatty(STDOUT_FILENO))) {
		/* The TUI loads the trace itself, with a progress bar. */
		rc = run_tui(&v, NULL);
		if (rc == OSC_TUI_NO_TERMINAL) /* TERM=dumb, no terminfo: the batch output */
			rc = osc_cli_view_is_compare(&v) ? osc_diff_run(&v) : osc_report_run(&v);
	} else {
		rc = osc_cli_view_is_compare(&v) ? osc_diff_run(&v) : osc_report_run(&v);
	}
	osc_cli_view_release(&v);
	return rc;
}

/*
 * `opscope --complete-columns LEVEL`, for the shell completions (completions/):
 * the column names of the level, one a line, as --columns and --sort take them.
 * Not in --help: a script's interface, not a user's.
 */
static int complete_columns(const char *level)
{
	struct osc_error err;
	enum osc_level l;
	const struct osc_column *cols;
	size_t nr;

	osc_error_clear(&err);
	if (osc_level_parse(level, &l, &err) != OSC_OK)
		return osc_cli_fail(&err);
	cols = osc_level_catalog(l, &nr);
	for (size_t i = 0; i < nr; i++)
		puts(cols[i].title);
	return OSC_EXIT_OK;
}

/* A bare word that is not an existing file was meant as a command. */
static bool meant_as_command(const char *arg)
{
	return arg[0] != '-' && !strpbrk(arg, "/.") && access(arg, F_OK);
}

int main(int argc, char **argv)
{
	struct osc_error err;

	setlocale(LC_ALL, "");
	/* Numbers are always written with '.', whatever the user's locale. */
	setlocale(LC_NUMERIC, "C");
	osc_cli_catch_signals();
	if (getenv("OPSCOPE_THREADS") && *getenv("OPSCOPE_THREADS") &&
	    osc_cli_parse_threads(getenv("OPSCOPE_THREADS"), "OPSCOPE_THREADS", &err) != OSC_OK)
		return osc_cli_fail(&err);
	if (argc == 3 && !strcmp(argv[1], "--complete-columns"))
		return complete_columns(argv[2]);
	osc_error_clear(&err);
	if (!osc_cli_config_skipped(argc, argv) && osc_cli_config_load(&err) != OSC_OK)
		return osc_cli_fail(&err);
	if (argc > 1) {
		for (size_t i = 0; i < NR_COMMANDS; i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].fn(argc - 1, argv + 1);
		if (meant_as_command(argv[1])) {
			char names[128] = "";
			const char *list[NR_COMMANDS], *meant;

			for (size_t i = 0; i < NR_COMMANDS; i++) {
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? ", " : "", commands[i].name);
				list[i] = commands[i].name;
			}
			meant = osc_suggest(argv[1], list, NR_COMMANDS);
			osc_error_set(&err, OSC_USAGE, argv[1], OSC_NO_OFFSET, NULL,
				      "unknown command, and no such file (%s%s%scommands: %s)",
				      meant ? "did you mean " : "", meant ? meant : "",
				      meant ? "? " : "", names);
			return osc_cli_fail(&err);
		}
	}
	return default_mode(argc, argv);
}
