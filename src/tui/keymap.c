/* keymap.c - key names and the key -> action table built from actions.h. */
#include <curses.h>
#include <stdbool.h>
#include <string.h>

#include "keymap.h"

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Up", KEY_UP },          { "Down", KEY_DOWN },     { "Left", KEY_LEFT },
	{ "Right", KEY_RIGHT },    { "PgUp", KEY_PPAGE },    { "PgDn", KEY_NPAGE },
	{ "Home", KEY_HOME },      { "End", KEY_END },       { "Enter", '\n' },
	{ "Tab", '\t' },           { "BackTab", KEY_BTAB },  { "Esc", 27 },
	{ "Space", ' ' },          { "Backspace", KEY_BACKSPACE }, { "Del", KEY_DC },
	{ "Lt", '<' },             { "Resize", KEY_RESIZE },
};

static const struct {
	const char *name, *keys, *help;
} actions[OSC_ACT_NR] = {
	[OSC_ACT_NONE] = { "none", "", "" },
#define OSC_ACTION_INFO(id, n, k, h) [OSC_ACT_##id] = { n, k, h },
	OSC_ACTION_LIST(OSC_ACTION_INFO)
#undef OSC_ACTION_INFO
};

int osc_key_parse(const char **s)
{
	const char *p = *s, *end;
	size_t len;

	if (*p != '<' || !(end = strchr(p, '>')) || end == p + 1) {
		*s = p + 1;
		return (unsigned char)*p;
	}
	p++;
	len = (size_t)(end - p);
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
		if (strlen(key_names[i].name) == len && !strncmp(p, key_names[i].name, len)) {
			*s = end + 1;
			return key_names[i].key;
		}
	}
	if (len == 3 && p[0] == 'C' && p[1] == '-' && p[2] >= 'a' && p[2] <= 'z') {
		*s = end + 1;
		return p[2] & 0x1f;
	}
	if (len >= 2 && len <= 3 && p[0] == 'F' && p[1] >= '1' && p[1] <= '9') {
		int n = p[1] - '0';

		if (len == 3 && p[2] >= '0' && p[2] <= '9')
			n = n * 10 + p[2] - '0';
		*s = end + 1;
		return KEY_F(n);
	}
	return -1;
}

void osc_key_name(int key, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
		if (key_names[i].key == key) {
			snprintf(buf, size, "<%s>", key_names[i].name);
			return;
		}
	}
	if (key >= KEY_F(1) && key <= KEY_F(63))
		snprintf(buf, size, "<F%d>", key - KEY_F(0));
	else if (key > 0 && key < 0x20)
		snprintf(buf, size, "<C-%c>", key + 'a' - 1);
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "<%d>", key);
}

int osc_key_normalize(int key)
{
	switch (key) {
	case '\r':
	case KEY_ENTER:
		return '\n';
	case 127:
	case 8:
		return KEY_BACKSPACE;
	default:
		return key;
	}
}

/* key code -> action; curses codes stay below KEY_MAX. */
static unsigned char bindings[KEY_MAX + 1];

/*
 * The next key of a list in actions.h's syntax ("j <Down>"), spaces
 * skipped; -1 at its end, or at a typo (the keys test lists them all).
 */
static int next_key(const char **p)
{
	while (**p == ' ')
		(*p)++;
	return **p ? osc_key_parse(p) : -1;
}

static void bind_all(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (int a = 1; a < OSC_ACT_NR; a++) {
		const char *p = actions[a].keys;
		int key;

		while ((key = next_key(&p)) >= 0)
			if (key <= KEY_MAX)
				bindings[key] = (unsigned char)a;
	}
}

enum osc_action osc_keymap_lookup(int key)
{
	bind_all();
	if (key < 0 || key > KEY_MAX)
		return OSC_ACT_NONE;
	return (enum osc_action)bindings[key];
}

/* Keys bound by osc_keymap_bind, newest last; the texts of the keys now bound. */
static int added[OSC_ACT_NR][8];
static size_t nr_added[OSC_ACT_NR];
static char texts[OSC_ACT_NR][160];
/* Keys osc_keymap_bind changed: actions.h's text of them no longer holds. */
static bool rebound[KEY_MAX + 1];

bool osc_keymap_bind(int key, enum osc_action a)
{
	bind_all();
	if (key < 0 || key > KEY_MAX || a >= OSC_ACT_NR)
		return false;
	bindings[key] = (unsigned char)a;
	rebound[key] = true;
	if (a != OSC_ACT_NONE && nr_added[a] < sizeof(added[a]) / sizeof(added[a][0]))
		added[a][nr_added[a]++] = key;
	return true;
}

enum osc_action osc_action_find(const char *name)
{
	for (int a = 0; a < OSC_ACT_NR; a++)
		if (!strcmp(actions[a].name, name))
			return (enum osc_action)a;
	return OSC_ACT_NR;
}

static bool was_added(enum osc_action a, int key)
{
	for (size_t i = 0; i < nr_added[a]; i++)
		if (added[a][i] == key)
			return true;
	return false;
}

static void append_key(char *buf, size_t size, int key)
{
	size_t len = strlen(buf);

	if (len)
		snprintf(buf + len, size - len, " ");
	len = strlen(buf);
	osc_key_name(key, buf + len, size - len);
}

const char *osc_action_name(enum osc_action a)
{
	return actions[a].name;
}

/*
 * The keys of a in actions.h's syntax as bound now: those bound by
 * osc_keymap_bind first (the newest is the hint), then actions.h's, less
 * those bound to something else since (a key of two actions, as G, stays:
 * views tell them apart).
 */
const char *osc_action_keys(enum osc_action a)
{
	char *out = texts[a];
	const char *p = actions[a].keys;
	int key;

	bind_all();
	out[0] = '\0';
	for (size_t i = nr_added[a]; i-- > 0;) {
		size_t j = i + 1;

		while (j < nr_added[a] && added[a][j] != added[a][i])
			j++;
		if (bindings[added[a][i]] == a && j == nr_added[a]) /* once, the newest */
			append_key(out, sizeof(texts[a]), added[a][i]);
	}
	while ((key = next_key(&p)) >= 0)
		if (key <= KEY_MAX && (!rebound[key] || bindings[key] == a) && !was_added(a, key))
			append_key(out, sizeof(texts[a]), key);
	return out;
}

const char *osc_action_help(enum osc_action a)
{
	return actions[a].help;
}

void osc_action_first_key(enum osc_action a, char *buf, size_t size)
{
	const char *p = osc_action_keys(a);
	int key = *p ? osc_key_parse(&p) : -1;

	if (key < 0)
		snprintf(buf, size, "?");
	else if (key == '<')
		snprintf(buf, size, "<");
	else
		osc_key_name(key, buf, size);
}

void osc_action_keys_text(enum osc_action a, char *buf, size_t size)
{
	const char *k = osc_action_keys(a), *lt = strstr(k, "<Lt>");

	if (lt)
		snprintf(buf, size, "%.*s<%s", (int)(lt - k), k, lt + 4);
	else
		snprintf(buf, size, "%s", k);
}

/* Write text with roff's special characters escaped. */
static void roff_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

/*
 * Write roff text lines of 80 bytes at most (mandoc -T lint's limit), broken
 * between words; a line that would start with a control character gets \&.
 */
static void roff_wrapped(FILE *out, const char *s)
{
	size_t col = 0;

	while (*s) {
		size_t len = strcspn(s, " "), wide = len;

		for (size_t i = 0; i < len; i++)
			wide += s[i] == '\\' || s[i] == '-'; /* \e, \- */
		if (col && col + 1 + wide > 80) {
			fputc('\n', out);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		if (!col && (*s == '.' || *s == '\'')) {
			fputs("\\&", out);
			col += 2;
		}
		for (size_t i = 0; i < len; i++) /* escaped as roff_text does */
			fputs(s[i] == '\\' ? "\\e" : s[i] == '-' ? "\\-" : (char[2]){ s[i], 0 }, out);
		col += wide;
		s += len;
		s += strspn(s, " ");
	}
	fputc('\n', out);
}

void osc_keymap_man(FILE *out)
{
	fputs(".\\\" Generated by `opscope --keys-man` from src/tui/actions.h: do not edit.\n",
	      out);
	for (int a = 1; a < OSC_ACT_NR; a++) {
		char keys[128], text[512];

		osc_action_keys_text((enum osc_action)a, keys, sizeof(keys));
		fputs(".TP\n.B ", out);
		roff_text(out, keys);
		fputc('\n', out);
		snprintf(text, sizeof(text), "%s (%s).", actions[a].help, actions[a].name);
		roff_wrapped(out, text);
	}
}
