/*
 * config.h - the user's defaults: ~/.config/opscope/config.
 *
 * The file ($OPSCOPE_CONFIG, else $XDG_CONFIG_HOME/opscope/config, else
 * ~/.config/opscope/config; none is fine) holds lines `NAME = VALUE` and
 * `bind KEY ACTION`, '#' comments and blank lines:
 *
 *   level = kernel      default --by (report, diff, whatif, the explorer)
 *   sort = self         default --sort where the level has that column
 *   names = short       kernel names: demangled, short or mangled
 *   color = off         the explorer's colours (on, off)
 *   mouse = off         the explorer's mouse (wheel, click; on, off)
 *   bind x quit         key -> action of the explorer (none unbinds it)
 *
 * Options on the command line win over it; --no-config ignores it.
 */
#ifndef OPSCOPE_CLI_CONFIG_H
#define OPSCOPE_CLI_CONFIG_H

#include <stdbool.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"

struct osc_cli_config {
	char path[4096];             /* the file read, "" if none */
	bool has_level;
	enum osc_level level;
	char sort[64];               /* a column name, "" if none */
	bool has_names;
	enum osc_name_style names;
	bool no_color, no_mouse;
};

/* What osc_cli_config_load read; all unset before (or with --no-config). */
extern struct osc_cli_config osc_cli_config;

/*
 * Read the configuration into osc_cli_config and bind its keys in the
 * explorer's keymap. A missing default file is no error; a missing
 * $OPSCOPE_CONFIG is. Errors name the file and line ("PATH:3") and what
 * would be right; the first one stops.
 */
enum osc_status osc_cli_config_load(struct osc_error *err);

/* True when argv (before a "--") has --no-config. */
bool osc_cli_config_skipped(int argc, char **argv);

#endif
