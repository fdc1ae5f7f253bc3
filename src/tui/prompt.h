/*
 * prompt.h - questions on the status line (filter, find, top N, file name, y/n).
 *
 * A prompt is state (struct osc_prompt in view.h), drawn by draw.c; keys go
 * to it while it is open. Scripts answer with a whole line.
 */
#ifndef OPSCOPE_TUI_PROMPT_H
#define OPSCOPE_TUI_PROMPT_H

#include "input.h"
#include "view.h"

/*
 * Open a prompt offering an initial text (the current filter, a file name, a
 * factor): Enter accepts it, typing replaces it, Backspace, Right or End
 * edit it (like a selected text). done(t, answer) runs on Enter (or a y/n
 * key when yesno), done(t, NULL) on Esc. pending is kept for done.
 */
void osc_prompt_open(struct osc_tui *t, const char *label, const char *initial, bool yesno,
		     unsigned (*done)(struct osc_tui *t, const char *answer),
		     const char *pending);

/* Feed a key or a script line to the open prompt; returns the reaction. */
unsigned osc_prompt_input(struct osc_tui *t, const struct osc_input *in);

#endif
