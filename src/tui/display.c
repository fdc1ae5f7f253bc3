/* display.c - curses setup, colours and terminal restoration. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"
#include "display.h"

volatile sig_atomic_t osc_display_sigint;

static volatile sig_atomic_t active;
static SCREEN *screen;
static FILE *null_out, *null_in;
static int attrs[OSC_STYLE_NR];

void osc_display_close(void)
{
	if (!active)
		return;
	active = 0;
	endwin();
}

static void on_fatal(int sig)
{
	osc_display_close();
	osc_outfile_abandon();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_sigint(int sig)
{
	if (osc_display_sigint)
		on_fatal(sig); /* the loop is stuck: restore and die */
	osc_display_sigint = 1;
}

/* Every signal that would end the process, unless it is ignored, and SIGINT. */
static void set_signals(void)
{
	static const int fatal[] = { OSC_EXTERNAL_SIGNALS, SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
				     SIGILL, SIGTRAP, SIGSYS };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		sa.sa_handler = fatal[i] == SIGINT ? on_sigint : on_fatal;
		if (!sigaction(fatal[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(fatal[i], &sa, NULL);
	}
}

/* Styles: colour pairs where allowed, plain attributes otherwise (NO_COLOR). */
static void set_styles(void)
{
	const char *no_color = getenv("NO_COLOR");
	bool color = has_colors() && !(no_color && *no_color);
	static const struct {
		short fg, bg;
		int attr, mono;
	} styles[OSC_STYLE_NR] = {
		[OSC_STYLE_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
		[OSC_STYLE_HEADER] = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD },
		[OSC_STYLE_INFO] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
		[OSC_STYLE_TITLE] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[OSC_STYLE_CURSOR] = { -1, -1, A_REVERSE, A_REVERSE },
		[OSC_STYLE_ON] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[OSC_STYLE_MIN] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[OSC_STYLE_MEDIAN] = { COLOR_YELLOW, -1, A_BOLD, A_UNDERLINE },
		[OSC_STYLE_MAX] = { COLOR_RED, -1, A_BOLD, A_BOLD },
		[OSC_STYLE_HEADING] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
		[OSC_STYLE_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD },
		[OSC_STYLE_HINT] = { -1, -1, A_DIM, A_NORMAL },
	};

	if (color) {
		start_color();
		use_default_colors();
	}
	for (int i = 0; i < OSC_STYLE_NR; i++) {
		attrs[i] = styles[i].mono;
		if (color && (styles[i].fg >= 0 || styles[i].bg >= 0) && i < COLOR_PAIRS) {
			init_pair((short)i, styles[i].fg, styles[i].bg);
			attrs[i] = (int)COLOR_PAIR(i) | styles[i].attr;
		} else if (color) {
			attrs[i] = styles[i].attr;
		}
	}
}

bool osc_display_open(bool script, char *err, size_t size)
{
	if (script) {
		const char *term = getenv("TERM");

		if (!term || !*term) {
			snprintf(err, size, "--script needs TERM to be set");
			return false;
		}
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		if (!null_out || !null_in) {
			snprintf(err, size, "cannot open /dev/null");
			return false;
		}
		screen = newterm(term, null_out, null_in);
		if (!screen) {
			snprintf(err, size, "unknown terminal type '%s'", term);
			return false;
		}
		set_term(screen);
	} else if (!initscr()) {
		snprintf(err, size, "cannot start curses");
		return false;
	}
	active = 1;
	set_signals();
	osc_set_die_hook(osc_display_close);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	set_styles();
	return true;
}

int osc_display_attr(enum osc_style s)
{
	return attrs[s];
}
