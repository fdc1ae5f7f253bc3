/*
 * export_json.c - one JSON document:
 *   {"meta": {"schema": "opscope/1", key: value...}, "columns": [title...],
 *    "rows": [{title: value}...]}
 * Numeric columns are JSON numbers (null if a cell is not a finite number);
 * strings are escaped per RFC 8259: quote, backslash and every control
 * character (as \n, \t ... or \u00XX), and so are DEL, C1 controls and the
 * invisible characters that reorder text (osc_text_unsafe: \uXXXX, the same
 * string to a JSON reader), so that a terminal never gets them raw. On a
 * terminal outside a UTF-8 locale every non-ASCII character is escaped.
 * Other characters pass through (text is UTF-8: an invalid byte is written
 * as \ufffd).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

struct json_state {
	size_t rows;  /* rows written, for the separating commas */
	bool ascii;   /* escape every non-ASCII character (a terminal, not UTF-8) */
};

/*
 * Write the non-ASCII character at *s (advanced past it): raw, or as
 * \uXXXX (a surrogate pair above U+FFFF) when unsafe or when ascii.
 */
static void put_non_ascii(FILE *out, const char **s, bool ascii)
{
	size_t n;
	int32_t cp = osc_utf8_decode(*s, &n);

	if (cp < 0) {
		fputs("\\ufffd", out);
	} else if (!ascii && !osc_text_unsafe((uint32_t)cp)) {
		fwrite(*s, 1, n, out);
	} else if (cp > 0xffff) {
		cp -= 0x10000;
		fprintf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
	} else {
		fprintf(out, "\\u%04x", (unsigned)cp);
	}
	*s += n;
}

void osc_export_json_text(FILE *out, const char *json, unsigned flags)
{
	bool ascii = (flags & OSC_EXPORT_TERMINAL) && !osc_locale_is_utf8();

	while (*json) {
		if ((unsigned char)*json >= 0x80) {
			put_non_ascii(out, &json, ascii);
			continue;
		}
		/* DEL can only be inside a string there: escaped, it is the same string. */
		if (*json == 0x7f)
			fputs("\\u007f", out);
		else
			putc(*json, out);
		json++;
	}
}

/* Printable ASCII that a JSON string holds as it is (not a quote or backslash). */
static bool plain_char(unsigned char ch)
{
	return ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
}

static void put_string(FILE *out, const char *s, const struct json_state *st)
{
	putc('"', out);
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		size_t plain = 0;

		while (plain_char((unsigned char)s[plain]))
			plain++;
		if (plain) { /* a run at once: most strings are nothing else */
			fwrite(s, 1, plain, out);
			s += plain;
			continue;
		}
		if (ch >= 0x80) {
			put_non_ascii(out, &s, st->ascii);
			continue;
		}
		s++;
		switch (ch) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		default:
			if (ch < 0x20 || ch == 0x7f)
				fprintf(out, "\\u%04x", ch);
			else
				putc(ch, out);
		}
	}
	putc('"', out);
}

/* True when s is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return false;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

/* A key naming its unit: its value is a number. */
static bool has_unit(const char *key)
{
	static const char *const units[] = { "_us", "_ns", "_ms", "_pct" };
	size_t len = strlen(key);

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (len > strlen(units[u]) && !strcmp(key + len - strlen(units[u]), units[u]))
			return true;
	return false;
}

static void json_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		       int width, unsigned flags, void **state)
{
	struct json_state *st = osc_xcalloc(1, sizeof(*st));

	(void)width;
	st->ascii = (flags & OSC_EXPORT_TERMINAL) && !osc_locale_is_utf8();
	*state = st;
	fputs("{\n  \"meta\": {\n    \"schema\": \"" OSC_EXPORT_SCHEMA "\"", out);
	for (size_t i = 0; m && i < m->nr; i++) {
		fputs(",\n    ", out);
		put_string(out, m->keys[i], st);
		fputs(": ", out);
		if (m->json && m->json[i])
			osc_export_json_text(out, m->json[i], st->ascii ? OSC_EXPORT_TERMINAL : 0);
		else if (has_unit(m->keys[i]) && is_json_number(m->values[i]))
			fputs(m->values[i], out);
		else
			put_string(out, m->values[i], st);
	}
	fputs("\n  },\n  \"columns\": [", out);
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			fputs(", ", out);
		put_string(out, t->cols[c].title, st);
	}
	fputs("],\n  \"rows\": [", out);
}

static void json_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	struct json_state *st = state;
	char buf[128];

	fputs(st->rows++ ? ",\n    {" : "\n    {", out);
	for (size_t c = 0; c < t->nr_cols; c++) {
		const char *v = t->cell(t->ctx, row, c, buf, sizeof(buf));

		if (c)
			fputs(", ", out);
		put_string(out, t->cols[c].title, st);
		fputs(": ", out);
		if (!t->cols[c].numeric)
			put_string(out, v, st);
		else
			fputs(is_json_number(v) ? v : "null", out);
	}
	putc('}', out);
}

static void json_end(FILE *out, const struct osc_table *t, void *state)
{
	struct json_state *st = state;

	(void)t;
	fputs(st->rows ? "\n  ]\n}\n" : "]\n}\n", out);
	free(st);
}

const struct osc_exporter osc_export_json_ops = {
	.name = "json",
	.begin = json_begin,
	.row = json_row,
	.end = json_end,
};
