/* script.c - reading --script files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <curses.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "keymap.h"
#include "script.h"

struct osc_script {
	FILE *f;
	char line[4096];
	const char *keys; /* rest of a keys line, NULL when none */
	unsigned lineno;
};

struct osc_script *osc_script_open(const char *path, char *err, size_t size)
{
	struct osc_script *s;
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, size, "cannot read script '%s': %s", path, strerror(errno));
		return NULL;
	}
	s = osc_xcalloc(1, sizeof(*s));
	s->f = f;
	return s;
}

void osc_script_free(struct osc_script *s)
{
	if (!s)
		return;
	fclose(s->f);
	free(s);
}

/* Next line without its newline, skipping comments (and blank lines unless answer). */
static bool next_line(struct osc_script *s, bool answer)
{
	while (fgets(s->line, sizeof(s->line), s->f)) {
		size_t len = strcspn(s->line, "\r\n");

		s->line[len] = '\0';
		s->lineno++;
		if (s->line[0] == '#' || (!answer && !s->line[0]))
			continue;
		return true;
	}
	return false;
}

/*
 * A line that is a command while a prompt is open: the screen with the
 * prompt open (:dump), what is computed meanwhile (:ahead, :jobs).
 */
static bool prompt_command(const char *line)
{
	return !strncmp(line, ":dump ", 6) || !strcmp(line, ":ahead") ||
	       !strncmp(line, ":jobs ", 6);
}

void osc_script_next(struct osc_script *s, bool answer, struct osc_input *in)
{
	const char *p;

	memset(in, 0, sizeof(*in));
	if (answer && (!s->keys || !*s->keys)) {
		s->keys = NULL;
		in->kind = next_line(s, true) ? OSC_IN_LINE : OSC_IN_END;
		if (in->kind == OSC_IN_LINE && prompt_command(s->line)) {
			in->kind = OSC_IN_COMMAND;
			snprintf(in->text, sizeof(in->text), "%s", s->line + 1);
			return;
		}
		snprintf(in->text, sizeof(in->text), "%s", s->line);
		return;
	}
	if (!s->keys || !*s->keys) {
		if (!next_line(s, false)) {
			in->kind = OSC_IN_END;
			return;
		}
		if (s->line[0] == ':') {
			s->keys = NULL;
			in->kind = OSC_IN_COMMAND;
			snprintf(in->text, sizeof(in->text), "%s", s->line + 1);
			return;
		}
		s->keys = s->line;
	}
	p = s->keys;
	/* the mouse wheel, as the terminal reports it (tests of mouse = off) */
	if (!strncmp(p, "<WheelDown>", 11) || !strncmp(p, "<WheelUp>", 9)) {
		in->kind = OSC_IN_MOUSE;
		in->buttons = p[6] == 'D' ? BUTTON5_PRESSED : BUTTON4_PRESSED;
		s->keys += p[6] == 'D' ? 11 : 9;
		return;
	}
	in->key = osc_key_parse(&s->keys);
	if (in->key < 0) {
		in->kind = OSC_IN_ERROR;
		snprintf(in->text, sizeof(in->text), "script line %u: unknown key '%.64s'",
			 s->lineno, p);
		s->keys = NULL;
		return;
	}
	in->kind = OSC_IN_KEY;
	in->is_char = in->key < 0x80;
}
