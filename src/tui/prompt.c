/* prompt.c - line editing on the status line. */
#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "prompt.h"

void osc_prompt_open(struct osc_tui *t, const char *label, const char *initial, bool yesno,
		     unsigned (*done)(struct osc_tui *t, const char *answer),
		     const char *pending)
{
	struct osc_prompt *p = &t->prompt;

	p->active = true;
	p->yesno = yesno;
	snprintf(p->label, sizeof(p->label), "%s", label);
	snprintf(p->buf, sizeof(p->buf), "%s", initial ? initial : "");
	p->len = strlen(p->buf);
	p->fresh = p->len > 0;
	p->done = done;
	snprintf(p->pending, sizeof(p->pending), "%s", pending ? pending : "");
}

static unsigned finish(struct osc_tui *t, const char *answer)
{
	unsigned (*done)(struct osc_tui *, const char *) = t->prompt.done;

	t->prompt.active = false;
	return done(t, answer) | OSC_R_REDRAW;
}

unsigned osc_prompt_input(struct osc_tui *t, const struct osc_input *in)
{
	struct osc_prompt *p = &t->prompt;
	char mb[MB_LEN_MAX + 1];

	if (in->kind == OSC_IN_LINE) {
		if (p->yesno)
			return finish(t, in->text[0] == 'y' || in->text[0] == 'Y' ? "y" : "n");
		if (!strcmp(in->text, "<Esc>"))
			return finish(t, NULL);
		/* An empty line is Enter on the text already there (a default). */
		if (in->text[0])
			snprintf(p->buf, sizeof(p->buf), "%s", in->text);
		return finish(t, p->buf);
	}
	if (in->kind != OSC_IN_KEY)
		return OSC_R_NONE;
	if (p->yesno)
		return finish(t, in->key == 'y' || in->key == 'Y' ? "y" : "n");
	switch (in->key) {
	case KEY_RIGHT:
	case KEY_END:
		p->fresh = false; /* edit the offered text */
		return OSC_R_REDRAW;
	case '\n':
	case '\r':
	case KEY_ENTER:
		return finish(t, p->buf);
	case 27:   /* Esc */
	case 7:    /* C-g */
	case 3:    /* C-c */
		return finish(t, NULL);
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (in->is_char && in->key != 127 && in->key != 8)
			break;
		p->fresh = false;
		while (p->len && ((unsigned char)p->buf[p->len - 1] & 0xc0) == 0x80)
			p->len--;
		if (p->len)
			p->len--;
		p->buf[p->len] = '\0';
		return OSC_R_REDRAW;
	case 21: /* C-u */
		p->fresh = false;
		p->len = 0;
		p->buf[0] = '\0';
		return OSC_R_REDRAW;
	default:
		break;
	}
	if (in->is_char && in->key >= 0x20 && in->key != 0x7f) {
		mbstate_t st;
		size_t n;

		memset(&st, 0, sizeof(st));
		n = wcrtomb(mb, (wchar_t)in->key, &st);
		if (n == (size_t)-1) {
			mb[0] = '?';
			n = 1;
		}
		if (p->fresh) { /* typing replaces the offered text */
			p->fresh = false;
			p->len = 0;
			p->buf[0] = '\0';
		}
		if (p->len + n < sizeof(p->buf)) {
			memcpy(p->buf + p->len, mb, n);
			p->len += n;
			p->buf[p->len] = '\0';
		}
	}
	return OSC_R_REDRAW;
}
