/* display.c - curses setup, colours and terminal restoration. */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <term.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"
#include "display.h"

volatile sig_atomic_t osc_display_sigint;

static volatile sig_atomic_t active;
static SCREEN *screen;
static FILE *null_out, *null_in, *tty_in;
static int attrs[OSC_STYLE_NR];

/*
 * What a signal handler restores, made ready at open: a handler may not call
 * curses (endwin can take locks or allocate, and hang when the signal came
 * in the middle of a redraw), only write(2) and tcsetattr.
 */
static int tty_fd = -1;            /* the terminal's output */
static int key_fd = -1;            /* where keys come from */
static struct termios tty_mode;    /* its mode before the screen opened */
static bool tty_mode_saved;
static char tty_reset[512];        /* what endwin would write, as bytes */
static size_t tty_reset_len;

bool osc_display_hung_up(void)
{
	struct pollfd p = { .fd = key_fd, .events = POLLIN };

	return key_fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

void osc_display_close(void)
{
	if (!active)
		return;
	active = 0;
	endwin();
}

/* osc_display_close with async-signal-safe calls only. */
static void close_in_handler(void)
{
	size_t done = 0;

	if (!active)
		return;
	active = 0;
	while (done < tty_reset_len) {
		ssize_t n = write(tty_fd, tty_reset + done, tty_reset_len - done);

		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno != EINTR)
			break;
	}
	if (tty_mode_saved)
		tcsetattr(tty_fd, TCSANOW, &tty_mode);
}

static void on_fatal(int sig)
{
	struct sigaction dfl;
	int saved_errno = errno; /* the signal raised again ends us once this returns */

	close_in_handler();
	osc_outfile_abandon();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	errno = saved_errno;
}

/* Whether terminfo has string capability cap. */
static bool has_cap(const char *cap)
{
	const char *s = tigetstr(cap);

	return s && s != (char *)-1;
}

/* Append s, a capability's string, to tty_reset without its padding ($<...>). */
static void add_reset(const char *s)
{
	while (s && *s && tty_reset_len < sizeof(tty_reset)) {
		const char *close = s[0] == '$' && s[1] == '<' ? strchr(s, '>') : NULL;

		if (close) {
			s = close + 1;
			continue;
		}
		tty_reset[tty_reset_len++] = *s++;
	}
}

/*
 * Make ready what close_in_handler writes: attributes off, the cursor
 * shown, the mouse and keypad modes off, the normal screen back; mode is the
 * terminal's mode before curses changed it.
 */
static void ready_reset(int fd, const struct termios *mode, bool saved, bool mouse)
{
	static const char *const caps[] = { "sgr0", "cnorm", "XM", "rmkx", "rmcup" };

	tty_fd = fd;
	tty_mode = *mode;
	tty_mode_saved = saved;
	tty_reset_len = 0;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (strcmp(caps[i], "XM"))
			add_reset(has_cap(caps[i]) ? tigetstr(caps[i]) : "");
		else if (mouse && has_cap("XM")) /* the mouse off, as curses turns it off */
			add_reset(tiparm(tigetstr("XM"), 0));
		else if (mouse && has_cap("kmous"))
			add_reset("\x1b[?1000l"); /* curses' default on an xterm */
	}
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

int osc_display_run(char *const argv[])
{
	struct sigaction ign, old_int, old_quit;
	int status = -1, saved = 0;
	pid_t pid;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	def_prog_mode();
	endwin();
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execv(argv[0], argv);
		_exit(127);
	}
	saved = errno;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	reset_prog_mode();
	refresh();
	errno = saved;
	return pid < 0 ? -1 : status;
}

static bool want_color = true, want_mouse = true;

void osc_display_options(bool color, bool mouse)
{
	want_color = color;
	want_mouse = mouse;
}

/* Styles: colour pairs where allowed, plain attributes otherwise (NO_COLOR). */
static void set_styles(void)
{
	const char *no_color = getenv("NO_COLOR");
	bool color = want_color && has_colors() && !(no_color && *no_color);
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
		[OSC_STYLE_BAR] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
		[OSC_STYLE_LABEL] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
		[OSC_STYLE_MARKED] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[OSC_STYLE_LINKED] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[OSC_STYLE_IDLE] = { COLOR_RED, -1, A_BOLD, A_BOLD },
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

/*
 * Flow control off (IXON): with it, Ctrl-S would stop the terminal's output
 * (XOFF) and the screen would freeze until Ctrl-Q. cbreak keeps ISIG, so
 * Ctrl-C still raises SIGINT (see display.h). def_prog_mode() makes curses
 * restore this mode, not its own, after a suspend.
 */
static void no_flow_control(FILE *in)
{
	struct termios tio;
	int fd = fileno(in);

	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &tio))
		return;
	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
	tcsetattr(fd, TCSANOW, &tio);
	def_prog_mode();
}

/*
 * Whether terminal type name has a terminfo entry here. Probed with
 * setupterm and freed again: a newterm() that fails leaks its screen.
 */
static bool known_term(const char *name, FILE *out)
{
	int err = 0;

	if (setupterm(name, fileno(out), &err) != OK)
		return false;
	del_curterm(cur_term);
	return true;
}

/*
 * A screen on terminal type term, else on the first of the fallbacks whose
 * terminfo entry exists (a kitty, alacritty or foot user logged into a stock
 * box); *used receives the type that worked. Never initscr(), which prints
 * its own message and exits on an unknown type.
 */
static SCREEN *open_term(const char *term, FILE *out, FILE *in, const char **used)
{
	static const char *const fallbacks[] = { "xterm-256color", "xterm", "vt100" };

	*used = term && *term && known_term(term, out) ? term : NULL;
	for (size_t i = 0; !*used && i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		if (known_term(fallbacks[i], out))
			*used = fallbacks[i];
	return *used ? newterm(*used, out, in) : NULL;
}

enum osc_display_status osc_display_open(bool script, char *note, size_t note_size,
					 char *err, size_t size)
{
	const char *term = getenv("TERM"), *used;
	FILE *out = stdout, *in = stdin;
	struct termios mode = { 0 };
	bool mode_saved;

	note[0] = '\0';
	if (script) {
		if (!term || !*term) {
			snprintf(err, size, "--script needs TERM to be set");
			return OSC_DISPLAY_ERROR;
		}
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		if (!null_out || !null_in) {
			snprintf(err, size, "cannot open /dev/null");
			return OSC_DISPLAY_ERROR;
		}
		out = null_out;
		in = null_in;
	} else {
		if (!term || !*term || !strcmp(term, "dumb")) {
			snprintf(err, size, "TERM is %s%s%s: no full-screen explorer, here is the report",
				 term ? "'" : "not set", term ? term : "", term ? "'" : "");
			return OSC_DISPLAY_NO_TERMINAL;
		}
		/*
		 * `cmd | opscope -`: the trace comes on standard input, so keys
		 * come from the terminal itself.
		 */
		if (!isatty(STDIN_FILENO) && !(tty_in = fopen("/dev/tty", "r"))) {
			snprintf(err, size, "standard input is not a terminal and /dev/tty cannot be "
				 "opened: no explorer, here is the report");
			return OSC_DISPLAY_NO_TERMINAL;
		}
		if (tty_in)
			in = tty_in;
	}
	mode_saved = !tcgetattr(fileno(out), &mode);
	screen = open_term(term, out, in, &used);
	if (!screen) {
		snprintf(err, size, "no terminfo entry for TERM '%s', nor for xterm-256color, xterm "
			 "or vt100%s", term, script ? "" : ": no explorer, here is the report");
		return script ? OSC_DISPLAY_ERROR : OSC_DISPLAY_NO_TERMINAL;
	}
	set_term(screen);
	if (!script && !tigetstr("cup")) { /* a hardcopy or glass terminal: no screen to draw */
		endwin();
		delscreen(screen);
		screen = NULL;
		snprintf(err, size, "TERM '%s' cannot move the cursor: no explorer, here is the report",
			 used);
		return OSC_DISPLAY_NO_TERMINAL;
	}
	if (used != term)
		snprintf(note, note_size, "TERM '%s' has no terminfo here: drawn as %s",
			 term, used);
	ready_reset(fileno(out), &mode, mode_saved, want_mouse);
	key_fd = script ? -1 : fileno(in);
	active = 1;
	set_signals();
	osc_set_die_hook(osc_display_close);
	cbreak();
	noecho();
	nonl();
	no_flow_control(in);
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (want_mouse) { /* else the terminal keeps selecting and pasting text */
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0);
	}
	set_styles();
	return OSC_DISPLAY_OK;
}

int osc_display_attr(enum osc_style s)
{
	return attrs[s];
}
