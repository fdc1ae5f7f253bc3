/*
 * command.h - what the TUI does beyond one view: global actions (filter,
 * find, export, help...) and the ":command ARGS" language used by the ':'
 * prompt and by scripts.
 *
 * Commands: see the man page's "Commands and scripts" (run_tui_tests checks
 * that it lists every one).
 */
#ifndef OPSCOPE_TUI_COMMAND_H
#define OPSCOPE_TUI_COMMAND_H

#include "view.h"

/* Run a command line (without the ':'); returns the reaction. */
unsigned osc_command_run(struct osc_tui *t, const char *line);

/* Actions no view handled; returns the reaction. */
unsigned osc_command_action(struct osc_tui *t, enum osc_action a);

/*
 * The filter Enter would set in the filter prompt being typed, into out
 * (set up here; release it): false, with nothing set, when no filter prompt
 * is open, it still offers the filter in force, or its text is not a filter.
 */
bool osc_command_filter_typed(const struct osc_tui *t, struct osc_filter *out);

#endif
