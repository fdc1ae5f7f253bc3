/* view_help.c - the key help, generated from the action table (actions.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "keymap.h"
#include "view.h"

static const struct osc_column help_cols[] = {
	{ "keys", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "action", 10, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "help", 20, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

static const char *help_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	enum osc_action a = (enum osc_action)(row + 1);

	(void)ctx;
	if (col == 0)
		osc_action_keys_text(a, buf, size);
	else
		snprintf(buf, size, "%s", col == 1 ? osc_action_name(a) : osc_action_help(a));
	return buf;
}

static void help_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	(void)t;
	(void)v;
	*out = (struct osc_table){
		.cols = help_cols, .nr_cols = 3, .nr_rows = OSC_ACT_NR - 1, .cell = help_cell,
	};
}

static void help_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	(void)t;
	(void)v;
	snprintf(buf, size, "keys (prompts: Enter accepts, Esc cancels, typing replaces an offered "
		 "text, Right or Backspace edits it)");
}

static const char *help_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "keys";
}

const struct osc_view_ops osc_view_help = {
	.name = "help",
	.table = help_table,
	.flex_col = 2,
	.title = help_title,
	.export_name = help_export_name,
};
