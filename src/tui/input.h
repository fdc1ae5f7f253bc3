/*
 * input.h - the next thing that happens: a key, a mouse event, a command or a
 * prompt answer, from the terminal or from a script, through one path.
 */
#ifndef OPSCOPE_TUI_INPUT_H
#define OPSCOPE_TUI_INPUT_H

#include <stdbool.h>

enum osc_input_kind {
	OSC_IN_NONE,    /* nothing within the timeout */
	OSC_IN_KEY,     /* key (a curses key code, or a character when is_char) */
	OSC_IN_MOUSE,   /* y, x, buttons */
	OSC_IN_COMMAND, /* text: a ":command" without the colon */
	OSC_IN_LINE,    /* text: a whole prompt answer (scripts) */
	OSC_IN_END,     /* end of the script, or of the terminal (it hung up) */
	OSC_IN_ERROR,   /* text: a bad script line */
};

struct osc_input {
	enum osc_input_kind kind;
	int key;
	bool is_char;          /* key is a character (wide), not a function key */
	int y, x;
	unsigned long buttons; /* mmask_t */
	char text[4096];
};

/*
 * Wait up to timeout_ms (-1: forever) for a terminal key or mouse event.
 * A pending SIGINT reads as <C-c>; a terminal that hung up as OSC_IN_END.
 */
void osc_input_read(int timeout_ms, struct osc_input *in);

#endif
