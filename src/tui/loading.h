/*
 * loading.h - loading the trace on a thread while the screen shows progress.
 *
 * The UI thread polls keys with a timeout and redraws the bar; q or <C-c>
 * sets the loader's cancel flag. In script mode it just waits (the next
 * scripted key is read only when loading has finished).
 */
#ifndef OPSCOPE_TUI_LOADING_H
#define OPSCOPE_TUI_LOADING_H

#include "view.h"

/*
 * Load t->args' trace into t->trace; OSC_CANCELLED when the user cancelled,
 * with *interrupted set when by SIGINT (<C-c>) rather than q (err then
 * says so).
 */
enum osc_status osc_loading_run(struct osc_tui *t, struct osc_error *err, bool *interrupted);

#endif
