/* test_export.c - CSV quoting, JSON escaping and validity, text table fitting. */
#define _XOPEN_SOURCE 700 /* wcswidth */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "opscope/export/export.h"

/*
 * A small generic table: a name column and two numeric columns.
 * Names hold what real kernel names hold: commas, quotes, newlines,
 * control characters, UTF-8 and wide characters.
 */
static const struct osc_column cols[] = {
	{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
	{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
	{ "p99_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_P99 },
};

struct fake_row {
	const char *name, *count, *total, *p99;
};

static const struct fake_row rows[] = {
	{ "void gemm<float, 128>(float const*, int)", "12", "123456.789", "10.001" },
	{ "say \"hi\"", "1", "-0.400", "0.000" },
	{ "two\nlines\r\tand \x01 ctrl \\ slash", "3", "1.000", "1.000" },
	{ "\xc3\xb1" "and\xc3\xba_kernel", "4", "2.500", "2.000" }, /* ñandú_kernel */
	{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88"
	  "_wide_kernel_name_that_is_long", "5", "3.000", "2.250" },
	{ "ampere_sgemm_128x64_tn_with_a_really_long_tail_that_never_ends_in_any_table",
	  "1000000", "99999999.999", "123.456" },
};

#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

static const char *fake_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct fake_row *r = &((const struct fake_row *)ctx)[row];
	const char *v[] = { r->name, r->count, r->total, r->p99 };

	snprintf(buf, size, "%s", v[col]);
	return col == 0 ? r->name : buf;
}

static struct osc_table fake_table(void)
{
	struct osc_table t = {
		.cols = cols,
		.nr_cols = 4,
		.nr_rows = NR_ROWS,
		.cell = fake_cell,
		.ctx = rows,
	};
	return t;
}

static const char *const meta_keys[] = { "trace", "runs" };
static const char *const meta_values[] = { "x.json", "runs 1-10 of 11 (model_run, warm-up run 0 skipped)" };
static const struct osc_export_meta meta = { meta_keys, meta_values, 2, NULL };

/* Export into a new string (caller frees). */
static char *export(enum osc_export_format f, int width)
{
	struct osc_table t = fake_table();
	struct osc_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_not_null(out);
	cr_assert_eq(osc_export_table(out, f, &t, &meta, width, 0, &err), OSC_OK);
	fclose(out);
	return text;
}

static void utf8_locale(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
}

Test(export, format_parse)
{
	enum osc_export_format f;
	struct osc_error err;

	cr_expect_eq(osc_export_format_parse("csv", &f, &err), OSC_OK);
	cr_expect_eq(f, OSC_EXPORT_CSV);
	cr_expect_eq(osc_export_format_parse("json", &f, &err), OSC_OK);
	cr_expect_eq(f, OSC_EXPORT_JSON);
	cr_expect_eq(osc_export_format_parse("table", &f, &err), OSC_OK);
	cr_expect_eq(f, OSC_EXPORT_TABLE);
	cr_expect_eq(osc_export_format_parse("xml", &f, &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--format");
	cr_expect_neq(strstr(err.message, "xml"), NULL);
}

/* A file name's extension names a format, in any case; other names leave it as it was. */
Test(export, format_of_name)
{
	static const struct {
		const char *name;
		enum osc_export_format want; /* OSC_EXPORT_TABLE: not a format's name */
	} cases[] = {
		{ "ops.csv", OSC_EXPORT_CSV },       { "a/b.c/ops.TSV", OSC_EXPORT_TSV },
		{ "ops.Json", OSC_EXPORT_JSON },     { "ops.md", OSC_EXPORT_MARKDOWN },
		{ "ops.markdown", OSC_EXPORT_MARKDOWN }, { ".csv", OSC_EXPORT_CSV },
		{ "ops.json.gz", OSC_EXPORT_TABLE }, { "ops.txt", OSC_EXPORT_TABLE },
		{ "ops", OSC_EXPORT_TABLE },         { "out.csv/ops", OSC_EXPORT_TABLE },
		{ "ops.csvx", OSC_EXPORT_TABLE },    { "ops.", OSC_EXPORT_TABLE },
		{ "", OSC_EXPORT_TABLE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum osc_export_format f = OSC_EXPORT_TABLE;
		bool named = osc_export_format_of_name(cases[i].name, &f);

		cr_expect_eq(named, cases[i].want != OSC_EXPORT_TABLE, "%s", cases[i].name);
		cr_expect_eq(f, cases[i].want, "%s", cases[i].name);
	}
}

Test(export, csv_quotes_fields)
{
	char *csv = export(OSC_EXPORT_CSV, 0);
	const char *want =
		"name,count,total_us,p99_us\n"
		"\"void gemm<float, 128>(float const*, int)\",12,123456.789,10.001\n"
		"\"say \"\"hi\"\"\",1,-0.400,0.000\n"
		"\"two\nlines\r\tand \x01 ctrl \\ slash\",3,1.000,1.000\n"
		"\xc3\xb1" "and\xc3\xba_kernel,4,2.500,2.000\n";

	cr_expect_eq(strncmp(csv, want, strlen(want)), 0, "got:\n%s", csv);
	cr_expect_null(strstr(csv, "\r\n"), "records end in LF, not CRLF");
	cr_expect_null(strstr(csv, "# "), "CSV has no meta lines");
	free(csv);
}

Test(export, json_is_valid_and_round_trips)
{
	char *text = export(OSC_EXPORT_JSON, 0);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = json_tokener_parse_ex(tok, text, (int)strlen(text));
	struct json_object *meta_o, *rows_o, *cols_o, *v;

	cr_assert_not_null(doc, "invalid JSON: %s\n%s",
			   json_tokener_error_desc(json_tokener_get_error(tok)), text);
	cr_expect_eq(text[strlen(text) - 1], '\n', "ends in LF");
	cr_expect_eq(text[strlen(text) - 2], '}', "one document");
	cr_assert(json_object_object_get_ex(doc, "meta", &meta_o));
	cr_assert(json_object_object_get_ex(meta_o, "runs", &v));
	cr_expect_str_eq(json_object_get_string(v), meta_values[1]);
	cr_assert(json_object_object_get_ex(doc, "columns", &cols_o));
	cr_expect_eq(json_object_array_length(cols_o), 4);
	cr_expect_str_eq(json_object_get_string(json_object_array_get_idx(cols_o, 2)),
			 "total_us");
	cr_assert(json_object_object_get_ex(doc, "rows", &rows_o));
	cr_assert_eq(json_object_array_length(rows_o), NR_ROWS);
	for (size_t i = 0; i < NR_ROWS; i++) {
		struct json_object *row = json_object_array_get_idx(rows_o, i);

		cr_assert(json_object_object_get_ex(row, "name", &v));
		cr_expect_str_eq(json_object_get_string(v), rows[i].name, "row %zu", i);
		cr_assert(json_object_object_get_ex(row, "count", &v));
		cr_expect(json_object_is_type(v, json_type_int), "count is a number");
		cr_expect_str_eq(json_object_to_json_string(v), rows[i].count);
		cr_assert(json_object_object_get_ex(row, "total_us", &v));
		cr_expect(json_object_is_type(v, json_type_double), "total_us is a number");
	}
	/* control characters are escaped, never raw */
	cr_expect_neq(strstr(text, "two\\nlines\\r\\tand \\u0001 ctrl \\\\ slash"), NULL);
	json_object_put(doc);
	json_tokener_free(tok);
	free(text);
}

/* Display width of one line (multibyte, in the current locale). */
static size_t line_cols(const char *s, size_t len)
{
	wchar_t wbuf[1024];
	char tmp[4096];
	size_t n;
	int w;

	cr_assert_lt(len, sizeof(tmp));
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	n = mbstowcs(wbuf, tmp, 1024);
	cr_assert_neq(n, (size_t)-1, "invalid multibyte text in '%s'", tmp);
	w = wcswidth(wbuf, n);
	cr_assert_geq(w, 0, "unprintable character in '%s'", tmp);
	return (size_t)w;
}

/* Lines of the table part (after the "# " meta lines), checked against width. */
static void check_table(const char *text, int width, const char *ellipsis)
{
	const char *p = text;
	size_t line = 0, table_line = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len;

		cr_assert_not_null(nl, "every line ends in LF");
		len = (size_t)(nl - p);
		if (strncmp(p, "# ", 2)) {
			if (width > 0)
				cr_expect_leq(line_cols(p, len), (size_t)width,
					      "line %zu wider than %d: '%.*s'", line, width,
					      (int)len, p);
			if (table_line == 1)
				cr_expect_eq(strspn(p, "-"), len, "dashed rule");
			if (table_line >= 2) {
				const struct fake_row *r = &rows[table_line - 2];

				/* numbers are never cut, and right-aligned */
				cr_expect(strstr(p, r->total), "total '%s' in '%.*s'",
					  r->total, (int)len, p);
				if (strlen(r->name) > 20 && width == 40)
					cr_expect_neq(strstr(p, ellipsis), NULL,
						      "shortened name in '%.*s'", (int)len, p);
			}
			table_line++;
		}
		line++;
		p = nl + 1;
	}
	cr_expect_eq(table_line, 2 + NR_ROWS);
}

Test(export, table_fits_widths, .init = utf8_locale)
{
	int widths[] = { 40, 80, 200 };

	for (size_t i = 0; i < 3; i++) {
		char *text = export(OSC_EXPORT_TABLE, widths[i]);

		check_table(text, widths[i], "\xe2\x80\xa6");
		free(text);
	}
}

Test(export, table_meta_header_and_alignment, .init = utf8_locale)
{
	char *text = export(OSC_EXPORT_TABLE, 200);

	cr_expect_eq(strncmp(text, "# trace: x.json\n# runs: runs 1-10 of 11", 39), 0, "%s", text);
	/* the header: name left, numbers right-aligned to their column */
	cr_expect_neq(strstr(text, "\nname "), NULL);
	cr_expect_neq(strstr(text, "  count      total_us   p99_us\n"), NULL, "%s", text);
	/* control characters never reach the terminal */
	cr_expect_neq(strstr(text, "two?lines??and ? ctrl \\ slash"), NULL, "%s", text);
	free(text);
}

Test(export, table_unlimited_width_keeps_names, .init = utf8_locale)
{
	char *text = export(OSC_EXPORT_TABLE, 0);

	cr_expect_neq(strstr(text, rows[5].name), NULL);
	cr_expect_null(strstr(text, "\xe2\x80\xa6"));
	free(text);
}

Test(export, table_narrow_drops_columns_not_digits, .init = utf8_locale)
{
	char *text = export(OSC_EXPORT_TABLE, 40);

	/* p99_us goes before count; total_us always stays */
	cr_expect_null(strstr(text, "p99_us"), "%s", text);
	cr_expect_neq(strstr(text, "total_us"), NULL);
	cr_expect_neq(strstr(text, "99999999.999"), NULL);
	free(text);
}

Test(export, table_ascii_ellipsis_outside_utf8)
{
	char *text;

	setlocale(LC_ALL, "C");
	text = export(OSC_EXPORT_TABLE, 40);
	cr_expect_neq(strstr(text, "ampere_s~ny_table"), NULL, "%s", text);
	cr_expect_null(strstr(text, "\xe2\x80\xa6"));
	/* non-ASCII is shown as '?' so byte widths are column widths */
	cr_expect_neq(strstr(text, "?and?_kernel"), NULL, "%s", text);
	free(text);
}

/* The aggregate adapter: titles from osc_agg_columns (a CPU trace's op level), cells from osc_agg_cell. */
Test(export, agg_table_csv)
{
	struct osc_trace t;
	struct osc_agg_row r = { .count = 2, .total = 3000, .min = 1000, .max = 2000,
				 .mean = 1500, .p50 = 1500, .p90 = 1900, .p99 = 1990,
				 .stddev = 707.10678, .self = 2500 };
	double cum[2] = { 100, 0 }; /* self_cum_pct, device_cum_pct */
	struct osc_agg a = { .rows = &r, .nr = 1, .host_busy = 2500, .cum_pct = cum };
	struct osc_agg_table_ctx ctx = { .trace = &t, .agg = &a };
	struct osc_table table;
	struct osc_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	osc_trace_init(&t);
	r.key = osc_trace_intern(&t, "Conv, fused", 11);
	osc_agg_default_columns(&a);
	osc_agg_table(&ctx, &table);
	cr_assert_eq(osc_export_table(out, OSC_EXPORT_CSV, &table, NULL, 0, 0, &err), OSC_OK);
	fclose(out);
	cr_expect_str_eq(text,
			 "name,count,self_us,self_pct,self_cum_pct,total_us,mean_us,min_us,"
			 "max_us,p50_us,p90_us,p99_us,stddev_us,count_per_run,self_per_run_us\n"
			 "\"Conv, fused\",2,2.500,100.00,100.00,3.000,1.500,1.000,2.000,1.500,"
			 "1.900,1.990,0.707,2.000,2.500\n");
	free(text);
	osc_trace_release(&t);
}

Test(export, write_failure_is_osc_io)
{
	struct osc_table t = fake_table();
	struct osc_error err;
	FILE *full = fopen("/dev/full", "w");

	if (!full)
		cr_skip_test("no /dev/full");
	cr_expect_eq(osc_export_table(full, OSC_EXPORT_CSV, &t, NULL, 0, 0, &err), OSC_IO);
	cr_expect_str_eq(err.subject, "output");
	fclose(full);
}

/* ---- hostile names: terminals and spreadsheets ---------------------------- */

static const struct fake_row hostile[] = {
	{ "esc\x1b]0;pwned\x07 bel", "1", "1.000", "1.000" },
	{ "c1\xc2\x9b" "31m csi", "1", "1.000", "1.000" },       /* U+009B: CSI */
	{ "bidi\xe2\x80\xae" "gnp.exe", "1", "1.000", "1.000" }, /* U+202E: RLO */
	{ "isolate\xe2\x81\xa6x\xe2\x81\xa9 del\x7f", "1", "1.000", "1.000" },
	{ "=HYPERLINK(\"http://x\")", "1", "-1.500", "1.000" },
	{ "+1+2", "1", "1.000", "1.000" },
	{ "@SUM(A1)", "1", "1.000", "1.000" },
	{ "-2", "1", "1.000", "1.000" }, /* a plain number stays a number */
	{ "\tcmd", "1", "1.000", "1.000" },
};

static char *export_hostile(enum osc_export_format f, unsigned flags)
{
	struct osc_table t = fake_table();
	struct osc_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	t.ctx = hostile;
	t.nr_rows = sizeof(hostile) / sizeof(hostile[0]);
	cr_assert_eq(osc_export_table(out, f, &t, NULL, 200, flags, &err), OSC_OK);
	fclose(out);
	return text;
}

/* No escape, bell, C1 control, DEL or bidi control reaches a terminal raw. */
static void expect_terminal_safe(const char *text, const char *what)
{
	cr_expect_null(strpbrk(text, "\x1b\x07\x7f"), "%s: raw control in %s", what, text);
	cr_expect_null(strstr(text, "\xc2\x9b"), "%s: raw C1 in %s", what, text);
	cr_expect_null(strstr(text, "\xe2\x80\xae"), "%s: raw RLO in %s", what, text);
	cr_expect_null(strstr(text, "\xe2\x81\xa6"), "%s: raw LRI in %s", what, text);
}

Test(export, hostile_names_never_reach_a_terminal_raw)
{
	char *text;

	utf8_locale();
	text = export_hostile(OSC_EXPORT_TABLE, 0);
	expect_terminal_safe(text, "table");
	cr_expect(strstr(text, "esc?]0;pwned? bel"), "%s", text);
	free(text);
	text = export_hostile(OSC_EXPORT_CSV, OSC_EXPORT_TERMINAL);
	expect_terminal_safe(text, "csv on a terminal");
	cr_expect(strstr(text, "bidi?gnp.exe"), "%s", text);
	free(text);
	/* JSON escapes them everywhere: the same strings for a JSON reader. */
	text = export_hostile(OSC_EXPORT_JSON, 0);
	expect_terminal_safe(text, "json");
	cr_expect(strstr(text, "c1\\u009b31m csi"), "%s", text);
	cr_expect(strstr(text, "bidi\\u202egnp.exe"), "%s", text);
	struct json_object *doc = json_tokener_parse(text);
	cr_assert_not_null(doc);
	struct json_object *rows_v, *row, *name;
	cr_assert(json_object_object_get_ex(doc, "rows", &rows_v));
	row = json_object_array_get_idx(rows_v, 2);
	cr_assert(json_object_object_get_ex(row, "name", &name));
	cr_expect_str_eq(json_object_get_string(name), hostile[2].name);
	json_object_put(doc);
	free(text);
	/* A file is exact: CSV keeps the bytes. */
	text = export_hostile(OSC_EXPORT_CSV, 0);
	cr_expect(strstr(text, "bidi\xe2\x80\xae" "gnp.exe"), "%s", text);
	free(text);
}

Test(export, csv_safe_neutralises_formulas)
{
	char *text = export_hostile(OSC_EXPORT_CSV, OSC_EXPORT_CSV_SAFE);

	cr_expect(strstr(text, "\n\"'=HYPERLINK(\"\"http://x\"\")\",1,-1.500,"), "%s", text);
	cr_expect(strstr(text, "\n\"'+1+2\",1,"), "%s", text);
	cr_expect(strstr(text, "\n\"'@SUM(A1)\",1,"), "%s", text);
	cr_expect(strstr(text, "\n-2,1,"), "a number stays a number: %s", text);
	cr_expect(strstr(text, "\n\"'\tcmd\",1,"), "%s", text);
	free(text);
	text = export_hostile(OSC_EXPORT_CSV, 0);
	cr_expect(strstr(text, "\n\"=HYPERLINK("), "exact without the flag: %s", text);
	free(text);
}

Test(export, tsv_escapes_tabs_and_line_ends)
{
	char *tsv = export(OSC_EXPORT_TSV, 0);
	const char *want =
		"name\tcount\ttotal_us\tp99_us\n"
		"void gemm<float, 128>(float const*, int)\t12\t123456.789\t10.001\n"
		"say \"hi\"\t1\t-0.400\t0.000\n"
		"two\\nlines\\r\\tand \x01 ctrl \\\\ slash\t3\t1.000\t1.000\n";

	cr_expect_eq(strncmp(tsv, want, strlen(want)), 0, "got:\n%s", tsv);
	/* every line has the same number of fields: a name never adds a TAB or a line */
	for (const char *line = tsv; *line; line = strchr(line, '\n') + 1) {
		size_t tabs = 0;

		for (const char *c = line; *c != '\n'; c++)
			tabs += *c == '\t';
		cr_expect_eq(tabs, 3, "line %.40s", line);
	}
	free(tsv);
}

Test(export, markdown_pipe_table)
{
	char *md = export(OSC_EXPORT_MARKDOWN, 0);
	const char *want =
		"| name | count | total_us | p99_us |\n"
		"| --- | ---: | ---: | ---: |\n"
		"| void gemm\\<float, 128\\>(float const\\*, int) | 12 | 123456.789 | 10.001 |\n"
		"| say \"hi\" | 1 | -0.400 | 0.000 |\n"
		"| two lines  and \xef\xbf\xbd ctrl \\\\ slash | 3 | 1.000 | 1.000 |\n"
		"| \xc3\xb1" "and\xc3\xba_kernel | 4 | 2.500 | 2.000 |\n"
		"| \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88"
		"_wide_kernel_name_that_is_long | 5 | 3.000 | 2.250 |\n";

	cr_expect_eq(strncmp(md, want, strlen(want)), 0, "got:\n%s", md);
	cr_expect_null(strstr(md, "# "), "Markdown has no meta lines");
	free(md);
}

Test(export, markdown_escapes_pipes)
{
	static const struct fake_row piped[] = { { "a|b", "1", "1.000", "1.000" } };
	struct osc_table t = fake_table();
	struct osc_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	t.ctx = piped;
	t.nr_rows = 1;
	cr_assert_eq(osc_export_table(out, OSC_EXPORT_MARKDOWN, &t, NULL, 0, 0, &err), OSC_OK);
	fclose(out);
	cr_expect_neq(strstr(text, "\n| a\\|b | 1 |"), NULL, "got:\n%s", text);
	free(text);
}

Test(export, json_meta_schema_and_typed_values)
{
	static const char *const keys[] = { "rows", "host_busy_us", "runs" };
	static const char *const values[] = { "2 of 6", "12.500", "runs 1-2 of 3" };
	static const char *const json[] = { "{\"shown\": 2, \"total\": 6}", NULL, NULL };
	const struct osc_export_meta m = { keys, values, 3, json };
	struct osc_table t = fake_table();
	struct osc_error err;
	struct json_object *doc, *meta_o, *v;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_eq(osc_export_table(out, OSC_EXPORT_JSON, &t, &m, 0, 0, &err), OSC_OK);
	fclose(out);
	doc = json_tokener_parse(text);
	cr_assert_not_null(doc, "not JSON:\n%s", text);
	cr_assert(json_object_object_get_ex(doc, "meta", &meta_o));
	cr_assert(json_object_object_get_ex(meta_o, "schema", &v));
	cr_expect_str_eq(json_object_get_string(v), OSC_EXPORT_SCHEMA);
	cr_assert(json_object_object_get_ex(meta_o, "rows", &v));
	cr_expect(json_object_is_type(v, json_type_object));
	cr_assert(json_object_object_get_ex(meta_o, "host_busy_us", &v));
	cr_expect(json_object_is_type(v, json_type_double));
	cr_assert(json_object_object_get_ex(meta_o, "runs", &v));
	cr_expect_str_eq(json_object_get_string(v), "runs 1-2 of 3");
	json_object_put(doc);
	free(text);
}
