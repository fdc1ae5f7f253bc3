/*
 * view_message.c - the last status message whole and the opscope command
 * line of the view below, laid out to be copied (y): the message as shell
 * comments, the command one argument group per line with " \" at the end,
 * so that a block copied from the terminal pastes into a shell as it is.
 * The status line only ever holds one line (draw.c), so a long command is
 * never broken there.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "view.h"

static const struct osc_column msg_cols[] = {
	{ "text", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

#define WRAP 72 /* columns of a line of the copy-friendly text */

struct msg_view {
	char **line;
	size_t nr, alloc;
};

static void add(struct msg_view *mv, char *s)
{
	if (mv->nr == mv->alloc) {
		mv->alloc = mv->alloc ? mv->alloc * 2 : 16;
		mv->line = osc_xreallocarray(mv->line, mv->alloc, sizeof(*mv->line));
	}
	mv->line[mv->nr++] = s;
}

/* text as "# " lines of at most WRAP columns, cut at spaces where it can. */
static void add_comment(struct msg_view *mv, const char *text)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > WRAP) {
			cut = WRAP;
			while (cut > WRAP / 2 && text[cut] != ' ')
				cut--;
			if (text[cut] != ' ')
				cut = WRAP;
		}
		add(mv, osc_xasprintf("# %.*s", (int)cut, text));
		text += cut;
		text += strspn(text, " ");
	}
}

/*
 * A command line as osc_cli_line_arg builds it (words, some single-quoted;
 * maybe a note in parentheses after it), one group of words per line of at
 * most WRAP columns (a long word alone), each but the last ending in " \".
 */
static void add_command(struct msg_view *mv, const char *cmd)
{
	const char *p = cmd, *note = NULL;
	char *cur = osc_xstrdup("");

	while (*p) {
		const char *w = p;
		bool quoted = false;
		char *next;

		while (*p && (quoted || *p != ' ')) {
			if (*p == '\'')
				quoted = !quoted;
			p++;
		}
		if (*w == '(' && !note) { /* the note after the command */
			note = w;
			break;
		}
		if (*cur && strlen(cur) + 1 + (size_t)(p - w) > WRAP) {
			add(mv, osc_xasprintf("%s \\", cur));
			free(cur);
			cur = osc_xasprintf("  %.*s", (int)(p - w), w);
		} else {
			next = osc_xasprintf("%s%s%.*s", cur, *cur ? " " : "", (int)(p - w), w);
			free(cur);
			cur = next;
		}
		p += strspn(p, " ");
	}
	add(mv, cur);
	if (note)
		add_comment(mv, note);
}

/* CSV, TSV, JSON or Markdown: what x writes in format f. */
static const char *format_title(enum osc_export_format f)
{
	return f == OSC_EXPORT_TSV ? "TSV" : f == OSC_EXPORT_JSON ? "JSON" :
	       f == OSC_EXPORT_MARKDOWN ? "Markdown" : "CSV";
}

static void msg_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct osc_view *below = (struct osc_view *)arg;
	struct msg_view *mv = osc_xcalloc(1, sizeof(*mv));
	char *cmd = below->ops->command ? below->ops->command(t, below) : NULL;

	v->priv = mv;
	if (t->last_msg[0]) {
		add(mv, osc_xstrdup("# the last message:"));
		add_comment(mv, t->last_msg);
		add(mv, osc_xstrdup(""));
	}
	if (cmd) {
		add(mv, osc_xasprintf("# the command printing the %s of this view (x%s):",
				      format_title(t->export_as),
				      t->export_as == OSC_EXPORT_JSON ? "; with the meta x leaves out" :
									""));
		add_command(mv, cmd);
		free(cmd);
	} else {
		add(mv, osc_xstrdup("# this view has no opscope command line"));
	}
}

static void msg_close(struct osc_view *v)
{
	struct msg_view *mv = v->priv;

	for (size_t i = 0; i < mv->nr; i++)
		free(mv->line[i]);
	free(mv->line);
	free(mv);
}

static const char *msg_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct msg_view *mv = ctx;

	(void)col;
	snprintf(buf, size, "%s", mv->line[row]);
	return buf;
}

static void msg_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct msg_view *mv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = msg_cols, .nr_cols = 1, .nr_rows = mv->nr, .cell = msg_cell, .ctx = mv,
	};
}

static void msg_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	(void)t;
	(void)v;
	snprintf(buf, size, "message and command line (select and copy; q goes back)");
}

static const char *msg_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "command";
}

const struct osc_view_ops osc_view_message = {
	.name = "message",
	.open = msg_open,
	.close = msg_close,
	.table = msg_table,
	.flex_col = 0,
	.title = msg_title,
	.export_name = msg_export_name,
};
