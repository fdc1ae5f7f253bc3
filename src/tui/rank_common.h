/*
 * rank_common.h - what the views of a distributed job (view_ranks.c,
 * view_rank_rows.c) share: a rank's trace, a child explorer on it, the
 * command line of a job's table and the message of a trace's key.
 */
#ifndef OPSCOPE_TUI_RANK_COMMON_H
#define OPSCOPE_TUI_RANK_COMMON_H

#include <stdbool.h>

#include "opscope/model/summary.h"
#include "view.h"

/* The trace summary s was built from, or NULL (with a message) when it is not on this machine. */
const char *osc_rank_trace(struct osc_tui *t, const struct osc_summary *s);

/*
 * Run `opscope [--runs SPEC] [--by LEVEL] -- TRACE [OTHER]` in this
 * terminal and come back when it quits (a script only says the command: its
 * keys are this explorer's); by: the level it opens at, NULL: its default.
 * Returns the reaction.
 */
unsigned osc_rank_explore(struct osc_tui *t, const char *trace, const char *other,
			  const char *by);

/*
 * "opscope report ARGS [--runs SPEC] [--ranks LIST] INPUTS -F csv" (a new
 * string) for a job's table: args the table's own options (a new string,
 * taken over); ranks the ranks shown, NULL: those the job was cut to.
 */
char *osc_rank_command(struct osc_tui *t, char *args, const char *ranks);

/* Whether a is a key of a trace's views, which a job's views answer with a message. */
bool osc_rank_trace_action(enum osc_action a);

/* That message. */
unsigned osc_rank_trace_key(struct osc_tui *t);

#endif
