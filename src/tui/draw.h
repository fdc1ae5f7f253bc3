/*
 * draw.h - turning the state into cells: the only code that writes to the screen.
 *
 * osc_draw_screen() draws everything from struct osc_tui (a screen is a
 * function of state); views never draw. Only the visible rows' cells are
 * computed, so drawing costs the same on a 10-row and a 2M-row table.
 */
#ifndef OPSCOPE_TUI_DRAW_H
#define OPSCOPE_TUI_DRAW_H

#include <stdio.h>

#include "opscope/load/load.h"
#include "view.h"

/* Draw the whole screen from t. */
void osc_draw_screen(struct osc_tui *t);

/* Draw the loading screen: progress bar, bytes, events, elapsed time. */
void osc_draw_loading(const char *name, const struct osc_load_progress *p, bool utf8);

/* Row of the screen where the top view's first row is drawn (for mouse clicks). */
int osc_draw_first_row(void);

/* Write the screen's text (one line per row, trailing spaces trimmed) to out. */
void osc_draw_dump(FILE *out);

#endif
