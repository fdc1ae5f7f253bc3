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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"
#include "opscope/analysis/category.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/module.h"

/* ---- the columns of each level ---- */

#define NUM(id, title, w) \
	[OSC_STAT_##id] = { title, w, OSC_ALIGN_RIGHT, true, OSC_STAT_##id }
#define TEXT(id, title, w) \
	[OSC_STAT_##id] = { title, w, OSC_ALIGN_LEFT, false, OSC_STAT_##id }
#define DIST_ID(m, d) (OSC_STAT_DISTS + (OSC_MEASURE_##m - 1) * OSC_DIST_NR + OSC_DIST_##d)
#define DIST(m, prefix, d, stem) \
	[DIST_ID(m, d)] = { prefix stem "_us", 9, OSC_ALIGN_RIGHT, true, \
			    (enum osc_stat)DIST_ID(m, d) }
#define DISTS(m, prefix)                                                              \
	DIST(m, prefix, MEAN, "mean"), DIST(m, prefix, MIN, "min"),                   \
	DIST(m, prefix, MAX, "max"), DIST(m, prefix, P50, "p50"),                     \
	DIST(m, prefix, P90, "p90"), DIST(m, prefix, P99, "p99"),                     \
	DIST(m, prefix, STDDEV, "stddev")

/* Every statistic's column, as the levels other than mapping title it. */
static const struct osc_column stat_columns[OSC_STAT_NR] = {
	TEXT(NAME, "name", 16),
	NUM(COUNT, "count", 5),
	NUM(TOTAL, "total_us", 9),
	NUM(MEAN, "mean_us", 9),
	NUM(MIN, "min_us", 9),
	NUM(MAX, "max_us", 9),
	NUM(P50, "p50_us", 9),
	NUM(P90, "p90_us", 9),
	NUM(P99, "p99_us", 9),
	NUM(STDDEV, "stddev_us", 9),
	NUM(SELF, "self_us", 9),
	NUM(DEVICE, "device_us", 9),
	NUM(DEVICE_TOTAL, "device_total_us", 9),
	NUM(KERNELS, "kernels", 5),
	NUM(SELF_PCT, "self_pct", 6),
	NUM(SELF_CUM_PCT, "self_cum_pct", 7),
	NUM(DEVICE_PCT, "device_pct", 6),
	NUM(DEVICE_CUM_PCT, "device_cum_pct", 7),
	TEXT(SHAPE, "input_type_shape", 16),
	TEXT(DIMS, "kernel_dimensions", 12),
	TEXT(OP, "op_name", 8),
	NUM(COUNT_PER_RUN, "count_per_run", 7),
	NUM(TOTAL_PER_RUN, "total_per_run_us", 9),
	NUM(SELF_PER_RUN, "self_per_run_us", 9),
	NUM(DEVICE_PER_RUN, "device_per_run_us", 9),
	NUM(OP_COUNT, "op_count", 7),
	NUM(OP_DUR, "op_dur (us)", 9),
	NUM(OP_AVG, "op_avg_dur (us)", 9),
	NUM(KERNEL_PCT, "kernel_pct (%)", 6),
	NUM(OP_PCT, "op_pct (%)", 6),
	NUM(WALL, "wall_us", 9),
	NUM(HOST_BUSY, "host_busy_us", 9),
	NUM(DEVICE_BUSY, "device_busy_us", 9),
	NUM(DEVICE_BUSY_PCT, "device_busy_pct", 6),
	NUM(DEVICE_IDLE, "device_idle_us", 9),
	NUM(OPS, "ops", 5),
	NUM(EVENTS, "events", 6),
	TEXT(CATEGORY, "category", 8),
	NUM(GFLOP, "gflop", 8),
	NUM(MBYTE, "mbyte", 8),
	NUM(FLOP_PER_BYTE, "flop_per_byte", 7),
	NUM(TFLOP_S, "tflop_s", 7),
	NUM(TB_S, "tb_s", 6),
	NUM(PEAK_FLOPS_PCT, "peak_flops_pct", 6),
	NUM(PEAK_BW_PCT, "peak_bw_pct", 6),
	TEXT(MODULE, "module", 16),
	DISTS(SELF, "self_"),
	DISTS(DEVICE, "device_"),
	DISTS(DEVICE_TOTAL, "device_total_"),
};

#define END OSC_STAT_NR /* ends a list of statistics */
#define HOST_DIST OSC_STAT_MEAN, OSC_STAT_MIN, OSC_STAT_MAX, OSC_STAT_P50, OSC_STAT_P90, \
	OSC_STAT_P99, OSC_STAT_STDDEV

/*
 * The default columns, as lists of statistics. Host levels lead with device
 * time on a trace with device events, else with self time; each percentage
 * sits beside the measure it divides, and the cumulative one follows it.
 */
static const enum osc_stat host_gpu[] = {
	OSC_STAT_COUNT, OSC_STAT_DEVICE, OSC_STAT_DEVICE_PCT, OSC_STAT_DEVICE_CUM_PCT,
	OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_TOTAL, OSC_STAT_DEVICE_TOTAL, OSC_STAT_KERNELS,
	HOST_DIST, OSC_STAT_COUNT_PER_RUN, OSC_STAT_DEVICE_PER_RUN, END
};
static const enum osc_stat host_cpu[] = {
	OSC_STAT_COUNT, OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_SELF_CUM_PCT, OSC_STAT_TOTAL,
	HOST_DIST, OSC_STAT_COUNT_PER_RUN, OSC_STAT_SELF_PER_RUN, END
};
static const enum osc_stat device_cols[] = {
	OSC_STAT_COUNT, OSC_STAT_TOTAL, OSC_STAT_DEVICE_PCT, OSC_STAT_DEVICE_CUM_PCT, HOST_DIST,
	OSC_STAT_COUNT_PER_RUN, OSC_STAT_TOTAL_PER_RUN, END
};
static const enum osc_stat run_gpu[] = {
	OSC_STAT_WALL, OSC_STAT_HOST_BUSY, OSC_STAT_DEVICE_BUSY, OSC_STAT_DEVICE_BUSY_PCT,
	OSC_STAT_DEVICE_IDLE, OSC_STAT_DEVICE, OSC_STAT_OPS, OSC_STAT_KERNELS, OSC_STAT_EVENTS, END
};
static const enum osc_stat run_cpu[] = {
	OSC_STAT_WALL, OSC_STAT_HOST_BUSY, OSC_STAT_OPS, OSC_STAT_EVENTS, END
};
/* The category level: its device time is by category, so device_total is not shown. */
/*
 * The category level has no total_us: ops of one category nest (aten::linear
 * holds aten::addmm, both GEMM), so a sum of their inclusive times counts
 * the same time twice.
 */
static const enum osc_stat category_gpu[] = {
	OSC_STAT_COUNT, OSC_STAT_DEVICE, OSC_STAT_DEVICE_PCT, OSC_STAT_DEVICE_CUM_PCT,
	OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_SELF_CUM_PCT, OSC_STAT_KERNELS, END
};
static const enum osc_stat category_cpu[] = {
	OSC_STAT_COUNT, OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_SELF_CUM_PCT, END
};
/* The roofline columns (roofline.h), at the op and shape levels. */
static const enum osc_stat roofline_cols[] = {
	OSC_STAT_GFLOP, OSC_STAT_MBYTE, OSC_STAT_FLOP_PER_BYTE, OSC_STAT_TFLOP_S, OSC_STAT_TB_S,
	OSC_STAT_PEAK_FLOPS_PCT, OSC_STAT_PEAK_BW_PCT, END
};
/*
 * The module level: device (not inside a child module) adds up over the
 * rows, device_total (the subtree) does not, so only device has a share.
 */
static const enum osc_stat module_gpu[] = {
	OSC_STAT_COUNT, OSC_STAT_DEVICE, OSC_STAT_DEVICE_PCT, OSC_STAT_DEVICE_CUM_PCT,
	OSC_STAT_DEVICE_TOTAL, OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_TOTAL, OSC_STAT_KERNELS,
	HOST_DIST, OSC_STAT_COUNT_PER_RUN, OSC_STAT_DEVICE_PER_RUN, END
};
static const enum osc_stat module_cpu[] = {
	OSC_STAT_COUNT, OSC_STAT_SELF, OSC_STAT_SELF_PCT, OSC_STAT_SELF_CUM_PCT, OSC_STAT_TOTAL,
	HOST_DIST, OSC_STAT_COUNT_PER_RUN, OSC_STAT_SELF_PER_RUN, END
};
/* More columns a host level can show (--columns): the rest of the measures. */
static const enum osc_stat host_more[] = {
	OSC_STAT_SELF_CUM_PCT, OSC_STAT_TOTAL_PER_RUN, OSC_STAT_SELF_PER_RUN, END
};

/* The mapping level: profile_explorer's op_kernel_mapping columns first. */
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
	{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
	{ "device_pct", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_DEVICE_PCT },
	{ "device_cum_pct", 7, OSC_ALIGN_RIGHT, true, OSC_STAT_DEVICE_CUM_PCT },
	{ "mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
	{ "min_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MIN },
	{ "max_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MAX },
	{ "p50_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },
	{ "p90_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P90 },
	{ "p99_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P99 },
	{ "stddev_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_STDDEV },
};
#define NR_MAPPING (sizeof(mapping_columns) / sizeof(mapping_columns[0]))

/* Room for the longest column list: a key, a second key and every statistic. */
#define MAX_COLS (OSC_STAT_NR + 2)

/* A level's column lists, built once (columns_init). */
static struct {
	struct osc_column cols[MAX_COLS];
	size_t nr;
} defaults[OSC_LEVEL_COUNT][2], catalog[OSC_LEVEL_COUNT];
static pthread_once_t columns_once = PTHREAD_ONCE_INIT;

/* Append stat s to list l unless it is there. */
static void add_stat(struct osc_column *cols, size_t *nr, enum osc_stat s)
{
	for (size_t i = 0; i < *nr; i++)
		if (cols[i].stat == s)
			return;
	cols[(*nr)++] = stat_columns[s];
}

/* The key columns of level l (name, then shape or dims). */
static void add_keys(struct osc_column *cols, size_t *nr, enum osc_level l)
{
	add_stat(cols, nr, OSC_STAT_NAME);
	if (l == OSC_LEVEL_SHAPE)
		add_stat(cols, nr, OSC_STAT_SHAPE);
	if (l == OSC_LEVEL_DIMS)
		add_stat(cols, nr, OSC_STAT_DIMS);
}

static void add_list(struct osc_column *cols, size_t *nr, const enum osc_stat *list)
{
	for (; *list != END; list++)
		add_stat(cols, nr, *list);
}

static void columns_init(void)
{
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		bool device = osc_level_is_device((enum osc_level)l);
		const enum osc_stat *gpu = device ? device_cols : l == OSC_LEVEL_RUN ? run_gpu
											 : host_gpu;
		const enum osc_stat *cpu = device ? device_cols : l == OSC_LEVEL_RUN ? run_cpu
											 : host_cpu;

		if (l == OSC_LEVEL_CATEGORY) {
			gpu = category_gpu;
			cpu = category_cpu;
		}
		if (l == OSC_LEVEL_MODULE) {
			gpu = module_gpu;
			cpu = module_cpu;
		}
		if (l == OSC_LEVEL_MAPPING) {
			for (int d = 0; d < 2; d++) {
				memcpy(defaults[l][d].cols, mapping_columns, sizeof(mapping_columns));
				defaults[l][d].nr = NR_MAPPING;
			}
			catalog[l] = defaults[l][0];
			continue;
		}
		add_keys(defaults[l][0].cols, &defaults[l][0].nr, (enum osc_level)l);
		add_list(defaults[l][0].cols, &defaults[l][0].nr, cpu);
		add_keys(defaults[l][1].cols, &defaults[l][1].nr, (enum osc_level)l);
		add_list(defaults[l][1].cols, &defaults[l][1].nr, gpu);
		if (l == OSC_LEVEL_SHAPE) /* the level where shapes define the work */
			for (int d = 0; d < 2; d++)
				add_list(defaults[l][d].cols, &defaults[l][d].nr, roofline_cols);
		catalog[l] = defaults[l][1];
		add_list(catalog[l].cols, &catalog[l].nr, cpu);
		if (l == OSC_LEVEL_OP || l == OSC_LEVEL_KERNEL) {
			add_stat(catalog[l].cols, &catalog[l].nr, OSC_STAT_CATEGORY);
			add_stat(catalog[l].cols, &catalog[l].nr, OSC_STAT_MODULE);
		}
		if (l == OSC_LEVEL_OP || l == OSC_LEVEL_SHAPE)
			add_list(catalog[l].cols, &catalog[l].nr, roofline_cols);
		if (l == OSC_LEVEL_MODULE) /* no distributions of self and device */
			add_list(catalog[l].cols, &catalog[l].nr, host_more);
		if (device || l == OSC_LEVEL_RUN || l == OSC_LEVEL_CATEGORY || l == OSC_LEVEL_MODULE)
			continue;
		add_list(catalog[l].cols, &catalog[l].nr, host_more);
		for (int m = OSC_MEASURE_SELF; m < OSC_MEASURE_NR; m++)
			for (int d = 0; d < OSC_DIST_NR; d++)
				add_stat(catalog[l].cols, &catalog[l].nr,
					 osc_stat_dist((enum osc_measure)m, (enum osc_dist_stat)d));
	}
}

static enum osc_level valid_level(enum osc_level l)
{
	pthread_once(&columns_once, columns_init);
	return (unsigned)l < OSC_LEVEL_COUNT ? l : OSC_LEVEL_OP;
}

const struct osc_column *osc_level_default_columns(enum osc_level l, bool device, size_t *nr)
{
	l = valid_level(l);
	*nr = defaults[l][device].nr;
	return defaults[l][device].cols;
}

const struct osc_column *osc_level_catalog(enum osc_level l, size_t *nr)
{
	l = valid_level(l);
	*nr = catalog[l].nr;
	return catalog[l].cols;
}

void osc_agg_default_columns(struct osc_agg *a)
{
	free(a->own_cols);
	a->own_cols = NULL;
	a->cols = osc_level_default_columns(a->level, a->has_device, &a->nr_cols);
}

const struct osc_column *osc_agg_columns(const struct osc_agg *a, size_t *nr)
{
	*nr = a->nr_cols;
	return a->cols;
}

const char *osc_columns_suggest(const struct osc_column *cols, size_t nr, const char *s)
{
	const char **names = osc_xcalloc(2 * nr + 1, sizeof(*names));
	char **stems = osc_xcalloc(nr + 1, sizeof(*stems));
	const char *best;
	size_t i;

	for (i = 0; i < nr; i++) {
		names[i] = cols[i].title;
		stems[i] = osc_xstrndup(cols[i].title, osc_column_stem(cols[i].title));
		names[nr + i] = stems[i];
	}
	best = osc_suggest(s, names, 2 * nr);
	for (i = 0; best && i < nr; i++) /* a stem stands for its column's title */
		if (best == stems[i])
			best = cols[i].title;
	for (i = 0; i < nr; i++)
		free(stems[i]);
	free(stems);
	free(names);
	return best;
}

const char *osc_columns_did_you_mean(const struct osc_column *cols, size_t nr, const char *s,
				     char *buf, size_t size)
{
	const char *best = osc_columns_suggest(cols, nr, s);

	if (best)
		snprintf(buf, size, ", did you mean '%s'?", best);
	else if (size)
		buf[0] = '\0';
	return buf;
}

enum osc_status osc_columns_parse(enum osc_level l, const char *list, struct osc_column **out,
				  size_t *nr, struct osc_error *err)
{
	size_t nr_cat, n = 0;
	const struct osc_column *cat = osc_level_catalog(l, &nr_cat);
	struct osc_column *cols = osc_xcalloc(strlen(list) + 1, sizeof(*cols));
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ","), c;
		char *name = osc_xstrndup(p, len);

		c = osc_columns_find(cat, nr_cat, name);
		if (c == nr_cat) {
			char hint[128];
			enum osc_status st = osc_error_set(
				err, OSC_USAGE, "--columns", OSC_NO_OFFSET, NULL,
				"level %s has no column '%s'%s (see `opscope report --help`)",
				osc_level_name(l), name,
				osc_columns_did_you_mean(cat, nr_cat, name, hint, sizeof(hint)));

			free(name);
			free(cols);
			return st;
		}
		free(name);
		cols[n++] = cat[c];
		if (!p[len])
			break;
		p += len + 1;
	}
	*out = cols;
	*nr = n;
	return OSC_OK;
}

void osc_agg_set_columns(struct osc_agg *a, struct osc_column *cols, size_t nr)
{
	free(a->own_cols);
	a->own_cols = cols;
	a->cols = cols;
	a->nr_cols = nr;
}

/*
 * v / 10^decimals with exactly `decimals` digits; exact for any long long.
 * Written digit by digit: a table of a million rows formats tens of
 * millions of these, and printf's parsing would be most of an export.
 */
static void format_fixed(long long v, int decimals, char *buf, size_t size)
{
	unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char tmp[48], *p = tmp + sizeof(tmp);
	size_t len;

	for (int d = 0; d < decimals; d++, m /= 10)
		*--p = (char)('0' + m % 10);
	*--p = '.';
	do {
		*--p = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	if (v < 0)
		*--p = '-';
	len = (size_t)(tmp + sizeof(tmp) - p);
	if (!size)
		return;
	len = len < size - 1 ? len : size - 1; /* cut as snprintf cuts */
	memcpy(buf, p, len);
	buf[len] = '\0';
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
		format_fixed(v, 3, buf, size);
	else
		format_special(ns, 3, 1000.0, buf, size);
}

const char *osc_format_text(const char *text, char *buf, size_t size)
{
	size_t n;

	if (!size)
		return text;
	n = strnlen(text, size - 1);
	memcpy(buf, text, n);
	buf[n] = '\0';
	return text;
}

void osc_format_pct(double pct, char *buf, size_t size)
{
	long long v;

	if (round_scaled(pct, 100.0, &v))
		format_fixed(v, 2, buf, size);
	else
		format_special(pct, 2, 1.0, buf, size);
}

void osc_format_ratio(double x, char *buf, size_t size)
{
	if (isnan(x))
		buf[0] = '\0';
	else
		snprintf(buf, size, "%.3f", x);
}

/* Integer ns never go through a double: exact for the whole int64 range. */
void osc_format_us_int(int64_t ns, char *buf, size_t size)
{
	format_fixed((long long)ns, 3, buf, size);
}

void osc_format_dims(const int32_t d[6], char *buf, size_t size)
{
	snprintf(buf, size, "b%dx%dx%d,g%dx%dx%d", d[0], d[1], d[2], d[3], d[4], d[5]);
}

/*
 * A roofline value: empty when unknown (CSV empty, JSON null); gflop and
 * mbyte with 6 decimals (mbyte: whole bytes), tb_s 4, the rest 3, the
 * percentages 2.
 */
static void roofline_cell(double v, enum osc_stat s, char *buf, size_t size)
{
	int decimals = s == OSC_STAT_GFLOP || s == OSC_STAT_MBYTE ? 6 : s == OSC_STAT_TB_S ? 4 : 3;

	if (!isfinite(v))
		buf[0] = '\0';
	else if (s == OSC_STAT_PEAK_FLOPS_PCT || s == OSC_STAT_PEAK_BW_PCT)
		osc_format_pct(v, buf, size);
	else
		snprintf(buf, size, "%.*f", decimals, v);
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
		return osc_format_text(osc_strtab_get(&a->paths, r->path), buf, size);
	if (a->keys & OSC_KEY_CATEGORY)
		return osc_category_name(r->category);
	if (a->keys & OSC_KEY_MODULE)
		return osc_format_text(osc_module_path(a->modules, r->module), buf, size);
	if (osc_level_is_device(a->level))
		return osc_format_text(osc_names_get(names, t, r->key), buf, size);
	return osc_format_text(osc_trace_str(t, r->key), buf, size);
}

/* An integer time statistic of r, ns (exact: never through a double). */
static int64_t int_cell(const struct osc_agg_row *r, enum osc_stat s)
{
	switch (s) {
	case OSC_STAT_TOTAL:
		return r->total;
	case OSC_STAT_MIN:
		return r->min;
	case OSC_STAT_MAX:
		return r->max;
	case OSC_STAT_SELF:
	case OSC_STAT_HOST_BUSY:
		return r->self;
	case OSC_STAT_DEVICE:
		return r->dev;
	case OSC_STAT_DEVICE_TOTAL:
		return r->dev_total;
	case OSC_STAT_WALL:
		return r->span;
	case OSC_STAT_DEVICE_BUSY:
		return r->dev_busy;
	default: /* DEVICE_IDLE */
		return r->span - r->dev_busy;
	}
}

const char *osc_agg_cell_names(const struct osc_trace *t, const struct osc_agg *a,
			       const struct osc_names *names, size_t row, size_t col, char *buf,
			       size_t size)
{
	const struct osc_agg_row *r = osc_agg_row_at(a, row);
	enum osc_stat s;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (col >= a->nr_cols)
		return buf;
	s = a->cols[col].stat;
	if (osc_stat_is_roofline(s)) {
		roofline_cell(osc_agg_value(a, row, s), s, buf, size);
		return buf;
	}
	switch (s) {
	case OSC_STAT_NAME:
		return name_cell(t, a, names, r, buf, size);
	case OSC_STAT_SHAPE:
		return osc_format_text(key_text(t, r->shape), buf, size);
	case OSC_STAT_OP:
		return osc_format_text(key_text(t, r->op), buf, size);
	case OSC_STAT_DIMS:
		osc_format_dims(r->dims, buf, size);
		break;
	case OSC_STAT_CATEGORY:
		return osc_category_name(r->category);
	case OSC_STAT_MODULE:
		if (a->modules && r->module != OSC_NONE)
			return osc_format_text(osc_module_path(a->modules, r->module), buf, size);
		break;
	case OSC_STAT_COUNT:
	case OSC_STAT_OPS:
	case OSC_STAT_KERNELS:
	case OSC_STAT_EVENTS:
		snprintf(buf, size, "%.0f", osc_agg_value(a, row, s));
		break;
	case OSC_STAT_TOTAL:
	case OSC_STAT_MIN:
	case OSC_STAT_MAX:
	case OSC_STAT_SELF:
	case OSC_STAT_HOST_BUSY:
	case OSC_STAT_DEVICE:
	case OSC_STAT_DEVICE_TOTAL:
	case OSC_STAT_WALL:
	case OSC_STAT_DEVICE_BUSY:
	case OSC_STAT_DEVICE_IDLE:
		osc_format_us_int(int_cell(r, s), buf, size);
		break;
	case OSC_STAT_SELF_PCT:
	case OSC_STAT_SELF_CUM_PCT:
	case OSC_STAT_DEVICE_PCT:
	case OSC_STAT_DEVICE_CUM_PCT:
	case OSC_STAT_DEVICE_BUSY_PCT:
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
		if (w < 0 || osc_text_unsafe((uint32_t)wc))
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
