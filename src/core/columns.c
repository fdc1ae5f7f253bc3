/*
 * columns.c - the aggregate columns, number formatting and display width.
 *
 * Every table output (CLI table, CSV, JSON, TUI) formats its cells here, so
 * they all show the same digits. Times are integer ns printed as µs with
 * exactly 3 decimals; doubles are rounded half away from zero to whole ns
 * first (llround), which is the ns -> µs 3-decimal step.
 */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "opscope/columns.h"

#define STAT_COLUMNS                                                    \
	{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },          \
	{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },       \
	{ "mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },         \
	{ "min_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MIN },           \
	{ "max_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MAX },           \
	{ "p50_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },           \
	{ "p90_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P90 },           \
	{ "p99_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P99 },           \
	{ "stddev_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },     \
	{ "pct", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_PCT },              \
	{ "cum_pct", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_CUM_PCT }

#define PER_RUN_COLUMNS                                                     \
	{ "count_per_run", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT_PER_RUN },  \
	{ "total_per_run_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL_PER_RUN }

/* op, kernel and path levels: per-run values say what one step or inference costs */
static const struct osc_column agg_columns[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	STAT_COLUMNS,
	PER_RUN_COLUMNS,
};

static const struct osc_column shape_columns[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "input_type_shape", 16, OSC_ALIGN_LEFT, false, OSC_STAT_SHAPE },
	STAT_COLUMNS,
	PER_RUN_COLUMNS,
};

static const struct osc_column dims_columns[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "kernel_dimensions", 12, OSC_ALIGN_LEFT, false, OSC_STAT_DIMS },
	STAT_COLUMNS,
	PER_RUN_COLUMNS,
};

static const struct osc_column mapping_columns[] = {
	{ "kernel_name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "op_name", 8, OSC_ALIGN_LEFT, false, OSC_STAT_OP },
	{ "input_type_shape", 16, OSC_ALIGN_LEFT, false, OSC_STAT_SHAPE },
	{ "kernel_dimensions", 12, OSC_ALIGN_LEFT, false, OSC_STAT_DIMS },
	{ "op_count", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_OP_COUNT },
	{ "kernel_count", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT_PER_RUN },
	{ "kernel_avg_dur (us)", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
	{ "kernel_total_dur (us)", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL_PER_RUN },
	{ "op_dur (us)", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_OP_DUR },
	{ "op_avg_dur (us)", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_OP_AVG },
	{ "kernel_pct (%)", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_KERNEL_PCT },
	{ "op_pct (%)", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_OP_PCT },
	STAT_COLUMNS,
};

static const struct osc_column run_columns[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "run_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_RUN_DUR },
	STAT_COLUMNS,
};

#define COLUMNS(a) { a, sizeof(a) / sizeof(a[0]) }

static const struct {
	const struct osc_column *cols;
	size_t nr;
} level_columns[OSC_LEVEL_COUNT] = {
	[OSC_LEVEL_OP] = COLUMNS(agg_columns),
	[OSC_LEVEL_SHAPE] = COLUMNS(shape_columns),
	[OSC_LEVEL_KERNEL] = COLUMNS(agg_columns),
	[OSC_LEVEL_DIMS] = COLUMNS(dims_columns),
	[OSC_LEVEL_MAPPING] = COLUMNS(mapping_columns),
	[OSC_LEVEL_RUN] = COLUMNS(run_columns),
	[OSC_LEVEL_PATH] = COLUMNS(agg_columns),
};

const struct osc_column *osc_agg_columns(size_t *nr)
{
	return osc_level_columns(OSC_LEVEL_OP, nr);
}

const struct osc_column *osc_level_columns(enum osc_level l, size_t *nr)
{
	if ((unsigned)l >= OSC_LEVEL_COUNT)
		l = OSC_LEVEL_OP;
	*nr = level_columns[l].nr;
	return level_columns[l].cols;
}

/* v / 10^decimals with exactly `decimals` digits; exact for any long long. */
static void format_fixed(long long v, unsigned long long scale, int decimals, char *buf,
			 size_t size)
{
	unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	snprintf(buf, size, "%s%llu.%0*llu", v < 0 ? "-" : "", m / scale, decimals, m % scale);
}

/* Rounds half away from zero to 1/scale; false when v is not finite or too big. */
static bool round_scaled(double v, double scale, long long *out)
{
	double r;

	if (!isfinite(v))
		return false;
	r = round(v * scale);
	if (fabs(r) >= 9.2e18)
		return false;
	*out = (long long)r;
	return true;
}

static void format_special(double v, int decimals, double div, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "nan");
	else if (isinf(v))
		snprintf(buf, size, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(buf, size, "%.*f", decimals, v / div);
}

size_t osc_column_stem(const char *title)
{
	static const char *const units[] = { "_us", " (us)", " (%)" };
	size_t len = strlen(title);

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t ul = strlen(units[u]);

		if (len > ul && !strcmp(title + len - ul, units[u]))
			return len - ul;
	}
	return len;
}

size_t osc_columns_find(const struct osc_column *cols, size_t nr, const char *s)
{
	for (size_t c = 0; c < nr; c++) {
		size_t stem = osc_column_stem(cols[c].title);

		if (!strcmp(s, cols[c].title) || (strlen(s) == stem && !strncmp(s, cols[c].title, stem)))
			return c;
	}
	return nr;
}

void osc_format_us(double ns, char *buf, size_t size)
{
	long long v;

	if (round_scaled(ns, 1.0, &v))
		format_fixed(v, 1000, 3, buf, size);
	else
		format_special(ns, 3, 1000.0, buf, size);
}

void osc_format_pct(double pct, char *buf, size_t size)
{
	long long v;

	if (round_scaled(pct, 100.0, &v))
		format_fixed(v, 100, 2, buf, size);
	else
		format_special(pct, 2, 1.0, buf, size);
}

/* Integer ns never go through a double: exact for the whole int64 range. */
void osc_format_us_int(int64_t ns, char *buf, size_t size)
{
	format_fixed((long long)ns, 1000, 3, buf, size);
}

void osc_format_dims(const int32_t d[6], char *buf, size_t size)
{
	snprintf(buf, size, "b%dx%dx%d,g%dx%dx%d", d[0], d[1], d[2], d[3], d[4], d[5]);
}

/* An interned key shown whole: copied into buf for callers that keep buf, returned as is. */
static const char *key_cell(const char *text, char *buf, size_t size)
{
	snprintf(buf, size, "%s", text);
	return text;
}

static const char *key_text(const struct osc_trace *t, osc_str s)
{
	return s == OSC_AGG_UNKNOWN ? "unknown" : osc_trace_str(t, s);
}

/* The name column: op key, kernel name (through names), "N: run name" or call path. */
static const char *name_cell(const struct osc_trace *t, const struct osc_agg *a,
			     const struct osc_names *names, const struct osc_agg_row *r, char *buf,
			     size_t size)
{
	if (a->keys & OSC_KEY_RUN) {
		snprintf(buf, size, "%u: %s", r->run,
			 r->key ? osc_trace_str(t, r->key) : "whole trace");
		return buf;
	}
	if (a->keys & OSC_KEY_PATH)
		return key_cell(osc_strtab_get(&a->paths, r->path), buf, size);
	if (osc_level_is_device(a->level))
		return key_cell(osc_names_get(names, t, r->key), buf, size);
	return key_cell(osc_trace_str(t, r->key), buf, size);
}

const char *osc_agg_cell_names(const struct osc_trace *t, const struct osc_agg *a,
			       const struct osc_names *names, size_t row, size_t col, char *buf,
			       size_t size)
{
	const struct osc_agg_row *r = &a->rows[row];
	size_t nr;
	const struct osc_column *cols = osc_level_columns(a->level, &nr);
	enum osc_stat s;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (col >= nr)
		return buf;
	s = cols[col].stat;
	switch (s) {
	case OSC_STAT_NAME:
		return name_cell(t, a, names, r, buf, size);
	case OSC_STAT_SHAPE:
		return key_cell(key_text(t, r->shape), buf, size);
	case OSC_STAT_OP:
		return key_cell(key_text(t, r->op), buf, size);
	case OSC_STAT_DIMS:
		osc_format_dims(r->dims, buf, size);
		break;
	case OSC_STAT_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case OSC_STAT_TOTAL:
		osc_format_us_int(r->total, buf, size);
		break;
	case OSC_STAT_MIN:
		osc_format_us_int(r->min, buf, size);
		break;
	case OSC_STAT_MAX:
		osc_format_us_int(r->max, buf, size);
		break;
	case OSC_STAT_RUN_DUR:
		osc_format_us_int(r->span, buf, size);
		break;
	case OSC_STAT_PCT:
	case OSC_STAT_CUM_PCT:
	case OSC_STAT_KERNEL_PCT:
	case OSC_STAT_OP_PCT:
		osc_format_pct(osc_agg_value(a, row, s), buf, size);
		break;
	case OSC_STAT_COUNT_PER_RUN:
	case OSC_STAT_OP_COUNT:
		/* A count per run: 3 decimals, like the per-run times. */
		osc_format_us(osc_agg_value(a, row, s) * 1000.0, buf, size);
		break;
	case OSC_STAT_NR:
		break;
	default: /* times in ns kept as doubles */
		osc_format_us(osc_agg_value(a, row, s), buf, size);
		break;
	}
	return buf;
}

const char *osc_agg_cell(const struct osc_trace *t, const struct osc_agg *a, size_t row,
			 size_t col, char *buf, size_t size)
{
	return osc_agg_cell_names(t, a, NULL, row, col, buf, size);
}

bool osc_locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "UTF8"));
}

/* One character of display: its bytes in the source and what to show. */
struct text_char {
	size_t len;       /* bytes consumed from the source */
	const char *show; /* bytes to write: the source, or "?" */
	size_t show_len;
	size_t width;     /* display columns */
};

/*
 * Decode the character at s (len > 0 bytes left). In a UTF-8 locale
 * mbrtowc/wcwidth decide; elsewhere a non-ASCII character (a whole UTF-8
 * sequence) is shown as one '?', since the terminal cannot show it.
 */
static void next_char(const char *s, size_t len, bool utf8, struct text_char *c)
{
	unsigned char b = (unsigned char)s[0];

	c->len = 1;
	c->show = "?";
	c->show_len = 1;
	c->width = 1;
	if (b < 0x80) {
		if (b >= 0x20 && b != 0x7f) {
			c->show = s;
		}
		return;
	}
	if (utf8) {
		mbstate_t st;
		wchar_t wc;
		size_t n;
		int w;

		memset(&st, 0, sizeof(st));
		n = mbrtowc(&wc, s, len, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
			return;
		c->len = n;
		w = wcwidth(wc);
		if (w < 0)
			return;
		c->show = s;
		c->show_len = n;
		c->width = (size_t)w;
		return;
	}
	while (c->len < len && ((unsigned char)s[c->len] & 0xc0) == 0x80)
		c->len++;
}

size_t osc_text_width(const char *s, size_t len, bool utf8)
{
	struct text_char c;
	size_t w = 0;

	for (size_t i = 0; i < len; i += c.len) {
		next_char(s + i, len - i, utf8, &c);
		w += c.width;
	}
	return w;
}

/* Append n bytes if they fit (with the NUL); false when buf is full. */
static bool put(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
	if (*at + n >= size)
		return false;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
	return true;
}

size_t osc_text_fit(const char *s, size_t len, size_t width, bool utf8, char *buf,
		    size_t size)
{
	size_t total = osc_text_width(s, len, utf8);
	size_t head, tail, used = 0, at = 0, i = 0, seen = 0;
	struct text_char c;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (total <= width) {
		head = total;
		tail = 0;
	} else if (width == 0) {
		return 0;
	} else {
		tail = (width - 1) / 2;
		head = width - 1 - tail;
	}
	/* The head: characters from the start while they fit. */
	for (; i < len; i += c.len) {
		next_char(s + i, len - i, utf8, &c);
		if (used + c.width > head || !put(buf, size, &at, c.show, c.show_len))
			break;
		used += c.width;
		seen += c.width;
	}
	if (total <= width)
		return used;
	if (!put(buf, size, &at, utf8 ? "\xe2\x80\xa6" : "~", utf8 ? 3 : 1))
		return used;
	used++;
	/* The tail: skip characters until what is left fits in `tail` columns. */
	for (; i < len; i += c.len) {
		next_char(s + i, len - i, utf8, &c);
		if (total - seen <= tail) {
			if (!put(buf, size, &at, c.show, c.show_len))
				break;
			used += c.width;
		}
		seen += c.width;
	}
	return used;
}
