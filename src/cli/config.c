/* config.c - the user's defaults (config.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "config.h"
#include "tui.h"

struct osc_cli_config osc_cli_config;

static bool default_path(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return (size_t)snprintf(buf, size, "%s/opscope/config", xdg) < size;
	if (home && *home)
		return (size_t)snprintf(buf, size, "%s/.config/opscope/config", home) < size;
	return false;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* An error about line `line` of the file: "PATH:LINE: message". */
static enum osc_status fail(struct osc_error *err, const char *path, int line, const char *fmt,
			    ...)
{
	char subject[sizeof(err->subject)], msg[sizeof(err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(subject, sizeof(subject), "%.480s:%d", path, line);
	return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL, "%s", msg);
}

/* on/off; true for on. */
static bool parse_switch(const char *v, bool *on)
{
	if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "yes")) {
		*on = true;
		return true;
	}
	if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no")) {
		*on = false;
		return true;
	}
	return false;
}

/* A column some level has: a typo is an error even when the level in use lacks it. */
static bool known_column(const char *name)
{
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		size_t nr;
		const struct osc_column *cols = osc_level_catalog((enum osc_level)l, &nr);

		if (osc_columns_find(cols, nr, name) < nr)
			return true;
	}
	return false;
}

static enum osc_status setting(struct osc_cli_config *c, const char *path, int line, char *text,
			       struct osc_error *err)
{
	char *eq = strchr(text, '='), *name, *value;
	bool on;

	if (!strncmp(text, "bind", 4) && (text[4] == ' ' || text[4] == '\t')) {
		char key[64], action[64], extra[2], msg[256];
		int n = sscanf(text + 4, "%63s %63s %1s", key, action, extra);

		if (n != 2)
			return fail(err, path, line,
				    "expected 'bind KEY ACTION', e.g. 'bind x quit'");
		if (osc_tui_bind(key, action, msg, sizeof(msg)))
			return fail(err, path, line, "%s", msg);
		return OSC_OK;
	}
	if (!eq)
		return fail(err, path, line,
			    "expected 'NAME = VALUE' or 'bind KEY ACTION', not '%s'", text);
	*eq = '\0';
	name = trim(text);
	value = trim(eq + 1);
	if (!strcmp(name, "level")) {
		if (osc_level_parse(value, &c->level, err) != OSC_OK)
			return fail(err, path, line, "level: %s", err->message);
		c->has_level = true;
	} else if (!strcmp(name, "sort")) {
		if (!known_column(value) || strlen(value) >= sizeof(c->sort))
			return fail(err, path, line,
				    "sort: no level has a column '%s' "
				    "(see 'opscope report --help')", value);
		snprintf(c->sort, sizeof(c->sort), "%s", value);
	} else if (!strcmp(name, "names")) {
		int s;

		for (s = 0; s < OSC_NAME_STYLE_COUNT; s++)
			if (!strcmp(value, osc_name_style_name((enum osc_name_style)s)))
				break;
		if (s == OSC_NAME_STYLE_COUNT)
			return fail(err, path, line,
				    "names: '%s' is not demangled, short or mangled", value);
		c->names = (enum osc_name_style)s;
		c->has_names = true;
	} else if (!strcmp(name, "color") || !strcmp(name, "colour") || !strcmp(name, "mouse")) {
		if (!parse_switch(value, &on))
			return fail(err, path, line, "%s: '%s' is not on or off", name, value);
		*(name[0] == 'm' ? &c->no_mouse : &c->no_color) = !on;
	} else {
		return fail(err, path, line,
			    "unknown setting '%s' (settings: level, sort, names, color, mouse, "
			    "bind)", name);
	}
	return OSC_OK;
}

enum osc_status osc_cli_config_load(struct osc_error *err)
{
	struct osc_cli_config *c = &osc_cli_config;
	const char *env = getenv("OPSCOPE_CONFIG");
	char buf[1024];
	FILE *f;
	int line = 0;
	enum osc_status st = OSC_OK;

	memset(c, 0, sizeof(*c));
	if (env && *env)
		snprintf(c->path, sizeof(c->path), "%s", env);
	else if (!default_path(c->path, sizeof(c->path)))
		return OSC_OK;
	f = fopen(c->path, "r");
	if (!f) {
		if (errno == ENOENT && !(env && *env)) {
			c->path[0] = '\0';
			return OSC_OK;
		}
		return osc_error_set(err, OSC_USAGE, c->path, OSC_NO_OFFSET, NULL,
				     "cannot read the configuration: %s%s", strerror(errno),
				     env && *env ? " (named by OPSCOPE_CONFIG)" : "");
	}
	while (st == OSC_OK && fgets(buf, sizeof(buf), f)) {
		char *text = trim(buf);

		line++;
		if (*text && *text != '#')
			st = setting(c, c->path, line, text, err);
	}
	fclose(f);
	return st;
}

bool osc_cli_config_skipped(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--no-config"))
			return true;
	return false;
}
