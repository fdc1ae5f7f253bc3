/*
 * export_json.c - one JSON document:
 *   {"meta": {key: "value"...}, "columns": [title...], "rows": [{title: value}...]}
 * Numeric columns are JSON numbers (null if a cell is not a finite number);
 * strings are escaped per RFC 8259: quote, backslash and every control
 * character (as \n, \t ... or \u00XX). Text is UTF-8 already (the loader
 * guarantees it), so other characters pass through.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

struct json_state {
	size_t rows; /* rows written, for the separating commas */
};

static void put_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

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
			if (ch < 0x20)
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

static void json_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		       int width, void **state)
{
	struct json_state *st = osc_xcalloc(1, sizeof(*st));

	(void)width;
	*state = st;
	fputs("{\n  \"meta\": {", out);
	for (size_t i = 0; m && i < m->nr; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		put_string(out, m->keys[i]);
		fputs(": ", out);
		put_string(out, m->values[i]);
	}
	fputs(m && m->nr ? "\n  },\n  \"columns\": [" : "},\n  \"columns\": [", out);
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			fputs(", ", out);
		put_string(out, t->cols[c].title);
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
		put_string(out, t->cols[c].title);
		fputs(": ", out);
		if (!t->cols[c].numeric)
			put_string(out, v);
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
