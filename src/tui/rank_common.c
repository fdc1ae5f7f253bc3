/*
 * rank_common.c - what the views of a distributed job share (rank_common.h).
 */
#include "rank_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "cli_line.h"
#include "display.h"

const char *osc_rank_trace(struct osc_tui *t, const struct osc_summary *s)
{
	struct stat sb;

	if (s->trace && *s->trace && !stat(s->trace, &sb) && S_ISREG(sb.st_mode))
		return s->trace;
	osc_tui_message(t, OSC_MSG_ERROR, "rank %lld: its trace %s is not here (a summary file "
			"keeps the path it had where it was written)", (long long)s->rank.rank,
			s->trace && *s->trace ? s->trace : "(unknown)");
	return NULL;
}

unsigned osc_rank_explore(struct osc_tui *t, const char *trace, const char *other,
			  const char *by)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *argv[10];
	int argc = 0, status;

	self[n > 0 ? n : 0] = '\0';
	argv[argc++] = n > 0 ? self : (char *)"opscope";
	if (t->args->runs) {
		argv[argc++] = (char *)"--runs";
		argv[argc++] = (char *)t->args->runs;
	}
	if (by) {
		argv[argc++] = (char *)"--by";
		argv[argc++] = (char *)by;
	}
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)trace;
	if (other)
		argv[argc++] = (char *)other;
	argv[argc] = NULL;
	if (t->script) {
		osc_tui_message(t, OSC_MSG_INFO, "runs: opscope%s%s%s%s -- %s%s%s",
				t->args->runs ? " --runs " : "", t->args->runs ? t->args->runs : "",
				by ? " --by " : "", by ? by : "", trace, other ? " " : "",
				other ? other : "");
		return OSC_R_REDRAW;
	}
	status = osc_display_run(argv);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
		osc_tui_message(t, OSC_MSG_ERROR, "opscope on %s%s%s ended with %s %d", trace,
				other ? " and " : "", other ? other : "",
				status < 0 ? "error" : WIFEXITED(status) ? "status" : "signal",
				status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status)
								     : WTERMSIG(status));
	return OSC_R_REDRAW;
}

char *osc_rank_command(struct osc_tui *t, char *args, const char *ranks)
{
	const struct osc_tui_args *a = t->args;
	char *line = osc_xasprintf("opscope report %s", args);

	free(args);
	if (a->runs)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--runs"), a->runs);
	if (ranks || a->ranks)
		line = osc_cli_line_arg(osc_cli_line_arg(line, "--ranks"), ranks ? ranks : a->ranks);
	for (size_t i = 0; i < a->nr_job_inputs; i++)
		line = osc_cli_line_arg(line, a->job_inputs[i]);
	line = osc_cli_line_arg(line, "-F");
	return osc_cli_line_arg(line, osc_export_format_name(t->export_as));
}

bool osc_rank_trace_action(enum osc_action a)
{
	switch (a) {
	case OSC_ACT_KERNELS: case OSC_ACT_LEVEL_RUN:
	case OSC_ACT_NAME_STYLE: case OSC_ACT_VIEW_RUNS: case OSC_ACT_VIEW_GPU:
	case OSC_ACT_TIMELINE: case OSC_ACT_SELECT_RANGE: case OSC_ACT_SELECT_ALL:
	case OSC_ACT_TOGGLE_WARMUP: case OSC_ACT_FILTER: case OSC_ACT_TREE:
	case OSC_ACT_COMPARE_MATCH: case OSC_ACT_CHANGED_ONLY: case OSC_ACT_OTHER_RUNS:
	case OSC_ACT_WHATIF: case OSC_ACT_HISTOGRAM:
	case OSC_ACT_MATRIX: case OSC_ACT_SET_FACTOR: case OSC_ACT_WARNINGS:
	case OSC_ACT_SORT_NEXT: case OSC_ACT_SORT_PREV: case OSC_ACT_SORT_REVERSE:
		return true;
	default:
		return false;
	}
}

unsigned osc_rank_trace_key(struct osc_tui *t)
{
	osc_tui_message(t, OSC_MSG_INFO, "a job's ranks: Enter on a rank opens its explorer, "
			"where this key works");
	return OSC_R_REDRAW;
}
