/*
 * display.h - the curses screen: setup, styles, and restoring the terminal.
 *
 * The terminal is restored on quit, on error, on every signal that ends the
 * process and is not ignored (OSC_EXTERNAL_SIGNALS: SIGTERM, SIGHUP, SIGQUIT,
 * SIGPIPE, SIGUSR1...; a crash: SIGSEGV, SIGABRT, SIGBUS...: restore, remove
 * an export's temporary file, then re-raise; the handler calls no curses, it
 * writes the bytes endwin would, made ready at open, and puts the terminal's
 * mode back with tcsetattr, so a signal in the middle of a redraw cannot
 * hang it) and before an out-of-memory
 * exit (die hook). SIGINT only raises a flag that the input loop turns into
 * <C-c> (quit, or cancel a load); a second SIGINT before the loop saw the
 * first restores the terminal and re-raises.
 */
#ifndef OPSCOPE_TUI_DISPLAY_H
#define OPSCOPE_TUI_DISPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

enum osc_style {
	OSC_STYLE_NORMAL,
	OSC_STYLE_HEADER,  /* top line */
	OSC_STYLE_INFO,    /* runs/filter/sort line */
	OSC_STYLE_TITLE,   /* column titles */
	OSC_STYLE_CURSOR,  /* selected row */
	OSC_STYLE_ON,      /* selected run */
	OSC_STYLE_MIN,
	OSC_STYLE_MEDIAN,
	OSC_STYLE_MAX,
	OSC_STYLE_HEADING, /* heading line in a detail */
	OSC_STYLE_ERROR,
	OSC_STYLE_HINT,
	OSC_STYLE_BAR,     /* timeline: an event */
	OSC_STYLE_LABEL,   /* timeline: an event's name on its bar */
	OSC_STYLE_MARKED,  /* timeline: an event of the row it was opened from */
	OSC_STYLE_LINKED,  /* timeline: the launch and op of the kernel under the cursor */
	OSC_STYLE_IDLE,    /* timeline: the GPU idle */
	OSC_STYLE_NR
};

enum osc_display_status {
	OSC_DISPLAY_OK,
	OSC_DISPLAY_NO_TERMINAL, /* this terminal cannot show a full screen: print the report */
	OSC_DISPLAY_ERROR,
};

/*
 * Open the screen: the terminal, or (script mode) a terminal of type $TERM
 * writing to /dev/null, sized by $LINES/$COLUMNS (default 80x24).
 * Keys come from standard input, or from /dev/tty when standard input is not
 * a terminal (the trace is piped in). A TERM without a terminfo entry falls
 * back to xterm-256color, xterm or vt100, with a one-line note in note ("" if
 * none). Interactive only: TERM unset or "dumb", no terminfo at all, a
 * terminal that cannot move the cursor, or no terminal to read keys from give
 * OSC_DISPLAY_NO_TERMINAL; other failures OSC_DISPLAY_ERROR. The reason is
 * in err.
 */
enum osc_display_status osc_display_open(bool script, char *note, size_t note_size,
					 char *err, size_t size);
/* Before osc_display_open: colours (when the terminal has them) and the mouse, on or off. */
void osc_display_options(bool color, bool mouse);

/* Restore the terminal (idempotent; signal handlers do the same without curses). */
void osc_display_close(void);

/*
 * Whether the terminal hung up: its other side closed (an ssh connection
 * lost), so no key can come any more. A process without a controlling
 * terminal gets no SIGHUP for it, and curses reads nothing, at once, forever.
 */
bool osc_display_hung_up(void);
/*
 * Hand the terminal to the program argv (argv[0]: its path) until it exits,
 * then take the screen back (a rank's own explorer from the ranks view).
 * Ctrl-C and Ctrl-\ go to the program, not to the explorer. Returns its
 * wait status, or -1 when it could not start (errno set).
 */
int osc_display_run(char *const argv[]);

/* Attributes of a style (colours unless NO_COLOR is set or the terminal has none). */
int osc_display_attr(enum osc_style s);

/* Set by SIGINT; the input loop clears it. */
extern volatile sig_atomic_t osc_display_sigint;

#endif
