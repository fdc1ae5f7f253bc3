/*
 * command.h - what the TUI does beyond one view: global actions (filter,
 * find, export, help...) and the ":command ARGS" language used by the ':'
 * prompt and by scripts.
 *
 * Commands: runs SPEC | filter [SPEC] | find TEXT | sort COL [asc|desc] |
 * top N | level NAME | export [FILE] | dump FILE | resize LINES COLS | quit |
 * compare FILE | other-runs [SPEC] (the compare view's other trace)
 */
#ifndef OPSCOPE_TUI_COMMAND_H
#define OPSCOPE_TUI_COMMAND_H

#include "view.h"

/* Run a command line (without the ':'); returns the reaction. */
unsigned osc_command_run(struct osc_tui *t, const char *line);

/* Actions no view handled; returns the reaction. */
unsigned osc_command_action(struct osc_tui *t, enum osc_action a);

#endif
