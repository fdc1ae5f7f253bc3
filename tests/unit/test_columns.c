/* test_columns.c - number formatting, aggregate cells and display width. */
#include <criterion/criterion.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"

static void utf8_locale(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
}

static void check_us(double ns, const char *want)
{
	char buf[64];

	osc_format_us(ns, buf, sizeof(buf));
	cr_expect_str_eq(buf, want, "osc_format_us(%.17g) = %s, want %s", ns, buf, want);
}

/* osc_format_text writes what snprintf's "%s" does, at every size, and returns the text. */
Test(columns, format_text_is_snprintf_s)
{
	static const char *const texts[] = { "", "a", "aten::conv2d", "é1\x01x" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t size = 0; size <= 16; size++) {
			char got[16] = "untouched", want[16] = "untouched";

			cr_expect_eq(osc_format_text(texts[i], got, size), texts[i]);
			snprintf(want, size, "%s", texts[i]);
			cr_expect_arr_eq(got, want, sizeof(got), "'%s' in %zu bytes", texts[i],
					 size);
		}
}

Test(columns, format_us_integers_are_exact)
{
	check_us(0, "0.000");
	check_us(1, "0.001");
	check_us(999, "0.999");
	check_us(1000, "1.000");
	check_us(1234567, "1234.567");
	check_us(4503599627370495.0, "4503599627370.495"); /* 2^52 - 1 */
}

Test(columns, format_us_negatives)
{
	check_us(-1, "-0.001");
	check_us(-400, "-0.400");
	check_us(-1500, "-1.500");
	check_us(-1234567, "-1234.567");
	/* rounds to zero: no "-0.000" */
	check_us(-0.4, "0.000");
}

Test(columns, format_us_rounds_half_away_from_zero)
{
	check_us(1234.5, "1.235");
	check_us(-1234.5, "-1.235");
	check_us(1234.49, "1.234");
	check_us(999.5, "1.000");
	check_us(0.5, "0.001");
	check_us(-0.5, "-0.001");
	check_us(2.5, "0.003"); /* not banker's rounding */
}

Test(columns, format_us_int_extremes_and_cut)
{
	char buf[32];

	osc_format_us_int(INT64_MAX, buf, sizeof(buf));
	cr_expect_str_eq(buf, "9223372036854775.807");
	osc_format_us_int(INT64_MIN, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-9223372036854775.808");
	osc_format_us_int(-5, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-0.005");
	/* a short buffer is cut as snprintf cuts, NUL-terminated */
	osc_format_us_int(1234567, buf, 6);
	cr_expect_str_eq(buf, "1234.");
	buf[0] = 'x';
	osc_format_us_int(1234567, buf, 1);
	cr_expect_str_eq(buf, "");
	osc_format_pct(-12.5, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-12.50");
}

Test(columns, format_us_non_finite)
{
	check_us(NAN, "nan");
	check_us(INFINITY, "inf");
	check_us(-INFINITY, "-inf");
}

Test(columns, format_pct)
{
	char buf[32];

	osc_format_pct(100, buf, sizeof(buf));
	cr_expect_str_eq(buf, "100.00");
	osc_format_pct(0.125, buf, sizeof(buf)); /* 12.5 hundredths, exact in binary */
	cr_expect_str_eq(buf, "0.13");
	osc_format_pct(12.375, buf, sizeof(buf));
	cr_expect_str_eq(buf, "12.38");
	osc_format_pct(0, buf, sizeof(buf));
	cr_expect_str_eq(buf, "0.00");
}

/* The default columns of the op level: led by device time on a GPU trace, else by self time. */
Test(columns, op_columns_lead_with_their_measure)
{
	static const char *const gpu[] = {
		"name", "count", "device_us", "device_pct", "device_cum_pct", "self_us",
		"self_pct", "total_us", "device_total_us", "kernels", "mean_us", "min_us",
		"max_us", "p50_us", "p90_us", "p99_us", "stddev_us", "count_per_run",
		"device_per_run_us"
	};
	static const char *const cpu[] = {
		"name", "count", "self_us", "self_pct", "self_cum_pct", "total_us", "mean_us",
		"min_us", "max_us", "p50_us", "p90_us", "p99_us", "stddev_us", "count_per_run",
		"self_per_run_us"
	};
	size_t nr;
	const struct osc_column *cols = osc_level_default_columns(OSC_LEVEL_OP, true, &nr);

	cr_assert_eq(nr, sizeof(gpu) / sizeof(gpu[0]));
	for (size_t i = 0; i < nr; i++) {
		cr_expect_str_eq(cols[i].title, gpu[i]);
		cr_expect_eq(cols[i].numeric, i != 0);
		cr_expect_eq(cols[i].align, i ? OSC_ALIGN_RIGHT : OSC_ALIGN_LEFT);
	}
	cols = osc_level_default_columns(OSC_LEVEL_OP, false, &nr);
	cr_assert_eq(nr, sizeof(cpu) / sizeof(cpu[0]));
	for (size_t i = 0; i < nr; i++)
		cr_expect_str_eq(cols[i].title, cpu[i]);
}

/* --columns: any column of the level's catalog, distributions of every measure included. */
Test(columns, parse_a_column_list)
{
	struct osc_column *cols;
	struct osc_error err;
	size_t nr;

	cr_assert_eq(osc_columns_parse(OSC_LEVEL_SHAPE, "name,input_type_shape,self,device_p90_us,"
				       "device_total_max,self_cum_pct", &cols, &nr, &err), OSC_OK);
	cr_assert_eq(nr, 6);
	cr_expect_eq(cols[1].stat, OSC_STAT_SHAPE);
	cr_expect_eq(cols[2].stat, OSC_STAT_SELF);
	cr_expect_str_eq(cols[3].title, "device_p90_us");
	cr_expect_eq(cols[3].stat, osc_stat_dist(OSC_MEASURE_DEVICE, OSC_DIST_P90));
	cr_expect_eq(osc_stats_dists(cols[3].stat), 1u << OSC_MEASURE_DEVICE);
	cr_expect_eq(cols[4].stat, osc_stat_dist(OSC_MEASURE_DEVICE_TOTAL, OSC_DIST_MAX));
	cr_expect_eq(osc_stats_dists(OSC_STAT_P90), 0, "the host distribution is always there");
	free(cols);
	cr_expect_eq(osc_columns_parse(OSC_LEVEL_KERNEL, "name,self_us", &cols, &nr, &err),
		     OSC_USAGE, "kernels have no self time");
	cr_expect_str_eq(err.subject, "--columns");
	cr_expect_eq(osc_columns_parse(OSC_LEVEL_OP, "name,,count", &cols, &nr, &err), OSC_USAGE);
}

Test(columns, agg_cells)
{
	struct osc_trace t;
	struct osc_agg_row row = {
		.count = 3,
		.total = 9007199254740993LL, /* 2^53 + 1: must not go through a double */
		.min = -1500,
		.max = 2000,
		.mean = 1234.5,
		.p50 = 1000,
		.p90 = 1999.5,
		.p99 = 1999.95,
		.stddev = 0.4,
		.self = 12375,
	};
	double cum[2] = { 99.995, 0 }; /* self_cum_pct, device_cum_pct */
	struct osc_agg a = { .rows = &row, .nr = 1, .host_busy = 100000, .cum_pct = cum };
	static const char *const want[] = { "Conv", "3", "9007199254740.993", "1.235",
					    "-1.500", "2.000", "1.000", "2.000", "2.000",
					    "0.000", "12.375", "12.38", NULL };
	struct osc_column *cols;
	size_t nr;
	struct osc_error err;
	char buf[64];

	cr_assert_eq(osc_columns_parse(OSC_LEVEL_OP, "name,count,total,mean,min,max,p50,p90,p99,"
				       "stddev,self,self_pct,self_cum_pct", &cols, &nr, &err),
		     OSC_OK);
	osc_agg_set_columns(&a, cols, nr);
	osc_trace_init(&t);
	row.key = osc_trace_intern(&t, "Conv", 4);
	for (size_t c = 0; want[c]; c++)
		cr_expect_str_eq(osc_agg_cell(&t, &a, 0, c, buf, sizeof(buf)), want[c],
				 "column %zu", c);
	/* 99.995 is 99.99499.. in binary: the 2-decimal step must not invent a digit. */
	osc_agg_cell(&t, &a, 0, 12, buf, sizeof(buf));
	cr_expect(!strcmp(buf, "99.99") || !strcmp(buf, "100.00"), "cum_pct %s", buf);
	free(cols);
	osc_trace_release(&t);
}

Test(columns, name_cell_is_never_cut)
{
	struct osc_trace t;
	char name[300], buf[16];
	struct osc_agg_row row = { .count = 1 };
	struct osc_agg a = { .rows = &row, .nr = 1 };
	const char *got;

	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	osc_trace_init(&t);
	row.key = osc_trace_intern(&t, name, strlen(name));
	osc_agg_default_columns(&a);
	got = osc_agg_cell(&t, &a, 0, 0, buf, sizeof(buf));
	cr_expect_str_eq(got, name);
	cr_expect_eq(strlen(buf), sizeof(buf) - 1, "buf holds the truncated copy");
	osc_trace_release(&t);
}

Test(columns, text_width_utf8, .init = utf8_locale)
{
	cr_assert(osc_locale_is_utf8());
	cr_expect_eq(osc_text_width("abc", 3, true), 3);
	cr_expect_eq(osc_text_width("\xe6\x97\xa5\xe6\x9c\xac", 6, true), 4); /* 日本 */
	cr_expect_eq(osc_text_width("e\xcc\x81", 3, true), 1);                /* e + acute */
	cr_expect_eq(osc_text_width("a\nb", 3, true), 3);
	cr_expect_eq(osc_text_width("a\xff", 2, true), 2); /* invalid byte counts 1 */
}

Test(columns, text_width_without_utf8)
{
	cr_expect_eq(osc_text_width("\xe6\x97\xa5\xe6\x9c\xac", 6, false), 2);
	cr_expect_eq(osc_text_width("abc", 3, false), 3);
}

static void check_fit(const char *s, size_t width, bool utf8, const char *want)
{
	char buf[128];
	size_t used = osc_text_fit(s, strlen(s), width, utf8, buf, sizeof(buf));

	cr_expect_str_eq(buf, want, "fit('%s', %zu) = '%s'", s, width, buf);
	cr_expect_leq(used, width);
	cr_expect_eq(used, osc_text_width(buf, strlen(buf), utf8));
}

Test(columns, text_fit_middle_ellipsis, .init = utf8_locale)
{
	check_fit("abcdefghij", 10, true, "abcdefghij");
	check_fit("abcdefghij", 20, true, "abcdefghij");
	check_fit("abcdefghij", 9, true, "abcd\xe2\x80\xa6ghij");
	check_fit("abcdefghij", 5, true, "ab\xe2\x80\xa6ij");
	check_fit("abcdefghij", 1, true, "\xe2\x80\xa6");
	check_fit("abcdefghij", 0, true, "");
	check_fit("abcdefghij", 5, false, "ab~ij");
	check_fit("a\tb", 3, true, "a?b");
}

Test(columns, text_fit_wide_characters, .init = utf8_locale)
{
	/* 日本語テキスト: 7 characters, 14 columns */
	const char *s = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad"
			"\xe3\x82\xb9\xe3\x83\x88";

	/* head 3 columns holds one wide char, tail 3 columns holds one */
	check_fit(s, 7, true, "\xe6\x97\xa5\xe2\x80\xa6\xe3\x83\x88");
	check_fit(s, 14, true, s);
	/* outside UTF-8 each character is one '?' column */
	check_fit(s, 5, false, "??~??");
}

Test(columns, find_by_title_or_stem)
{
	static const struct osc_column cols[] = {
		{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
		{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
		{ "kernel_avg_dur (us)", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
		{ "op_pct (%)", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_OP_PCT },
	};

	cr_expect_eq(osc_columns_find(cols, 4, "name"), 0);
	cr_expect_eq(osc_columns_find(cols, 4, "total_us"), 1);
	cr_expect_eq(osc_columns_find(cols, 4, "total"), 1);
	cr_expect_eq(osc_columns_find(cols, 4, "kernel_avg_dur"), 2);
	cr_expect_eq(osc_columns_find(cols, 4, "op_pct"), 3);
	cr_expect_eq(osc_columns_find(cols, 4, "op_pct (%)"), 3);
	cr_expect_eq(osc_columns_find(cols, 4, "tot"), 4, "a prefix is not a name");
	cr_expect_eq(osc_columns_find(cols, 4, "_us"), 4);
	cr_expect_eq(osc_column_stem("p50_us"), 3);
	cr_expect_eq(osc_column_stem("count"), 5);
}
