/*
 * test_summary_file.c - summary files: a summary written and read back is
 * the same summary (hostile names and extreme numbers included) and the
 * same bytes when written again; every bad input gives its status and one
 * message naming the file, the line's byte offset and the column.
 */
#define _GNU_SOURCE /* open_memstream, glob */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/export/summary_write.h"
#include "opscope/load/summary_file.h"
#include "opscope/model/level.h"

/* Summary s as a summary file, in a new string (*len bytes). */
static char *written(const struct osc_summary *s, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	struct osc_error err;

	cr_assert_eq(osc_summary_write(s, out, "out", &err), OSC_OK);
	fclose(out);
	return text;
}

/*
 * A rank whose every string holds what names hold (commas, quotes, CR and
 * LF, tabs, UTF-8, nothing at all) and whose numbers reach the ends of
 * their types; sorted as a read summary is.
 */
static void hostile(struct osc_summary *s)
{
	struct osc_sum_run runs[] = {
		{ .ts = INT64_MIN, .wall = INT64_MAX, .events = UINT64_MAX, .host_busy = -1,
		  .device_time = 7, .busy = 1, .idle = -2, .cat = { 3, INT64_MIN, 0, INT64_MAX },
		  .exposed_comm = 42 },
		{ 0 },
	};
	struct osc_sum_row rows[] = {
		{ .level = OSC_LEVEL_OP, .run = 0, .count = UINT64_MAX, .kernels = 0,
		  .total = INT64_MAX, .self = INT64_MIN, .dev = -5, .dev_total = 5, .min = 0,
		  .max = 1 },
		{ .level = OSC_LEVEL_KERNEL, .run = 1, .count = 1, .kernels = 1, .total = 10,
		  .self = 0, .dev = 10, .dev_total = 10, .min = 10, .max = 10 },
		{ .level = OSC_LEVEL_PATH, .run = 0, .count = 0 },
		{ .level = OSC_LEVEL_MODULE, .run = 1, .count = 2 },
	};
	struct osc_sum_call calls[] = {
		{ .group_size = -1, .bytes = NAN, .ts = -1, .dur = 0, .host_ts = INT64_MIN,
		  .run = OSC_NONE, .seq = UINT32_MAX },
		{ .group_size = 8, .bytes = 0.1, .ts = 5, .dur = INT64_MAX, .host_ts = 0, .run = 1,
		  .seq = 0 },
		{ .group_size = 0, .bytes = 1.7976931348623157e308, .ts = 6, .dur = 1,
		  .host_ts = 1, .run = 0, .seq = 1 },
	};

	osc_summary_init(s);
	s->trace = strdup("dir/a,\"b\"\r\n\tc\xc3\xbc.json");
	s->rank = (struct osc_rank){ .source = OSC_RANK_DISTRIBUTED_INFO, .rank = INT64_MAX,
				     .world_size = 0, .backend = "nc,cl\"\n" };
	s->format = OSC_FORMAT_KINETO;
	s->events = UINT64_MAX;
	s->input_bytes = 12345;
	s->has_device = true;
	s->run_source = osc_summary_intern(s, "ProfilerStep");
	runs[0].name = osc_summary_intern(s, "ProfilerStep#1,\"2\"");
	runs[1].name = osc_summary_intern(s, "");
	rows[0].key = osc_summary_intern(s, "aten::mm \"x\",y\nz\r");
	rows[1].key = osc_summary_intern(s, "void k<\t\xe2\x82\xac>(float, int)");
	rows[1].kernel = osc_summary_intern(s, "_Z1kI\"a,b\"\r\nEvfi");
	rows[2].key = osc_summary_intern(s, "");
	rows[3].key = osc_summary_intern(s, "\"");
	calls[0].name = osc_summary_intern(s, "allreduce");
	calls[0].dtype = OSC_STR_EMPTY;
	calls[0].group = osc_summary_intern(s, "\"pg,0\"\r");
	calls[1].name = osc_summary_intern(s, "ncclDevKernel_AllGather_RING_LL(x, y)");
	calls[1].dtype = osc_summary_intern(s, "Float");
	calls[1].group = osc_summary_intern(s, "8");
	calls[1].algorithm = osc_summary_intern(s, "RING");
	calls[1].protocol = osc_summary_intern(s, "LL");
	calls[0].algorithm = osc_summary_intern(s, "mixed");
	calls[2].name = calls[1].name;
	calls[2].dtype = OSC_STR_EMPTY;
	calls[2].group = OSC_STR_EMPTY;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		osc_summary_add_run(s, &runs[i]);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		osc_summary_add_row(s, &rows[i]);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		osc_summary_add_call(s, &calls[i]);
	osc_summary_sort(s);
}

/* b (read back) holds what a holds, field by field. */
static void expect_same(const struct osc_summary *a, const struct osc_summary *b)
{
	cr_expect_str_eq(b->trace, a->trace);
	cr_expect_eq(b->rank.source, a->rank.source);
	cr_expect_eq(b->rank.rank, a->rank.rank);
	cr_expect_eq(b->rank.world_size, a->rank.world_size);
	cr_expect_str_eq(b->rank.backend, a->rank.backend);
	cr_expect_eq(b->format, a->format);
	cr_expect_eq(b->events, a->events);
	cr_expect_eq(b->input_bytes, a->input_bytes);
	cr_expect_eq(b->has_device, a->has_device);
	cr_expect_str_eq(osc_summary_str(b, b->run_source), osc_summary_str(a, a->run_source));
	cr_assert_eq(b->nr_runs, a->nr_runs);
	for (size_t i = 0; i < a->nr_runs; i++) {
		const struct osc_sum_run *x = &a->runs[i], *y = &b->runs[i];

		cr_expect_str_eq(osc_summary_str(b, y->name), osc_summary_str(a, x->name));
		cr_expect(x->ts == y->ts && x->wall == y->wall && x->events == y->events &&
			  x->host_busy == y->host_busy && x->device_time == y->device_time &&
			  x->busy == y->busy && x->idle == y->idle &&
			  !memcmp(x->cat, y->cat, sizeof(x->cat)) &&
			  x->exposed_comm == y->exposed_comm, "run %zu", i);
	}
	cr_assert_eq(b->nr_rows, a->nr_rows);
	for (size_t i = 0; i < a->nr_rows; i++) {
		const struct osc_sum_row *x = &a->rows[i], *y = &b->rows[i];

		cr_expect_str_eq(osc_summary_str(b, y->key), osc_summary_str(a, x->key));
		cr_expect_str_eq(osc_summary_str(b, y->kernel), osc_summary_str(a, x->kernel));
		cr_expect(x->level == y->level && x->run == y->run && x->count == y->count &&
			  x->kernels == y->kernels && x->total == y->total && x->self == y->self &&
			  x->dev == y->dev && x->dev_total == y->dev_total && x->min == y->min &&
			  x->max == y->max, "row %zu", i);
	}
	cr_assert_eq(b->nr_calls, a->nr_calls);
	for (size_t i = 0; i < a->nr_calls; i++) {
		const struct osc_sum_call *x = &a->calls[i], *y = &b->calls[i];

		cr_expect_str_eq(osc_summary_str(b, y->name), osc_summary_str(a, x->name));
		cr_expect_str_eq(osc_summary_str(b, y->dtype), osc_summary_str(a, x->dtype));
		cr_expect_str_eq(osc_summary_str(b, y->group), osc_summary_str(a, x->group));
		cr_expect_str_eq(osc_summary_str(b, y->algorithm),
				 osc_summary_str(a, x->algorithm));
		cr_expect_str_eq(osc_summary_str(b, y->protocol), osc_summary_str(a, x->protocol));
		cr_expect(isnan(x->bytes) ? isnan(y->bytes) : x->bytes == y->bytes, "call %zu", i);
		cr_expect(x->group_size == y->group_size && x->ts == y->ts && x->dur == y->dur &&
			  x->host_ts == y->host_ts && x->run == y->run && x->seq == y->seq,
			  "call %zu", i);
	}
}

Test(summary_file, round_trip)
{
	struct osc_summary a, b;
	struct osc_error err;
	size_t len, len2;
	char *text, *again;

	hostile(&a);
	text = written(&a, &len);
	osc_summary_init(&b);
	cr_assert_eq(osc_summary_read_buffer("sum.csv", text, len, &b, &err), OSC_OK, "%s",
		     err.message);
	cr_expect_eq(b.source, OSC_SUM_FROM_FILE);
	cr_expect_str_eq(b.path, "sum.csv");
	expect_same(&a, &b);
	again = written(&b, &len2);
	cr_expect(len2 == len && !memcmp(again, text, len), "written again:\n%s\nfirst:\n%s",
		  again, text);
	free(again);
	free(text);
	osc_summary_release(&a);
	osc_summary_release(&b);
}

/* The written header is version 1's, and an unknown rank leaves rank and world_size empty. */
Test(summary_file, header_and_empty_rank)
{
	struct osc_summary s;
	size_t len;
	char *text;

	osc_summary_init(&s);
	text = written(&s, &len);
	cr_expect(!strncmp(text, "format,table,trace,rank,world_size,run,level,name,text,count,"
				 "kernels,ts_ns,wall_ns,dur_ns,total_ns,self_ns,device_ns,"
				 "device_total_ns,min_ns,max_ns,busy_ns,idle_ns,compute_ns,"
				 "comm_ns,memcpy_ns,memset_ns,exposed_comm_ns,host_busy_ns,"
				 "device_time_ns,bytes,group,group_size,seq,host_ts_ns,algorithm,"
				 "protocol\n"
				 "opscope-summary-1,meta,,,,,,rank_source,none,",
			  strlen("format,table,trace,rank,world_size,run,level,name,text,count,"
				 "kernels,ts_ns,wall_ns,dur_ns,total_ns,self_ns,device_ns,"
				 "device_total_ns,min_ns,max_ns,busy_ns,idle_ns,compute_ns,"
				 "comm_ns,memcpy_ns,memset_ns,exposed_comm_ns,host_busy_ns,"
				 "device_time_ns,bytes,group,group_size,seq,host_ts_ns,algorithm,"
				 "protocol\n"
				 "opscope-summary-1,meta,,,,,,rank_source,none,")),
		  "%s", text);
	cr_expect(osc_summary_sniff(text, len));
	cr_expect(!osc_summary_sniff("{\"traceEvents\": []}", 19));
	cr_expect(!osc_summary_sniff("format,", 7));
	free(text);
	osc_summary_release(&s);
}

/* A plain summary with one line of each table, to break one field at a time. */
static char *base_text(void)
{
	struct osc_summary s;
	struct osc_sum_run run = { .ts = 100, .wall = 200, .events = 5 };
	struct osc_sum_row row = { .level = OSC_LEVEL_OP, .run = 0, .count = 3, .kernels = 1,
				   .total = 30, .self = 20, .min = 1, .max = 9 };
	struct osc_sum_call call = { .group_size = 2, .bytes = 1024, .ts = 110, .dur = 5,
				     .host_ts = 105, .run = 0, .seq = 0 };
	size_t len;
	char *text;

	osc_summary_init(&s);
	s.trace = strdup("t.json");
	s.rank = (struct osc_rank){ .source = OSC_RANK_FILE_NAME, .rank = 1, .world_size = 2 };
	run.name = osc_summary_intern(&s, "step");
	row.key = osc_summary_intern(&s, "mm");
	call.name = osc_summary_intern(&s, "allreduce");
	call.group = osc_summary_intern(&s, "0");
	osc_summary_add_run(&s, &run);
	osc_summary_add_row(&s, &row);
	osc_summary_add_call(&s, &call);
	text = written(&s, &len);
	osc_summary_release(&s);
	return text;
}

/*
 * The base text with column c of its first line of table (NULL: the header)
 * set to value (NULL: the column removed, its comma too); *at gets the
 * offset of that line. The base has no quoted field.
 */
static char *with_field(const char *table, int c, const char *value, int64_t *at)
{
	char *base = base_text(), *out = malloc(strlen(base) + (value ? strlen(value) : 0) + 1);
	const char *line = base;

	while (table) {
		const char *t = strchr(line, ',') + 1;

		if (!strncmp(t, table, strlen(table)) && t[strlen(table)] == ',')
			break;
		line = strchr(line, '\n') + 1;
	}
	*at = line - base;
	{
		const char *from = line, *to;
		size_t n = (size_t)(line - base);

		memcpy(out, base, n);
		for (int i = 0; i < c; i++)
			from = strchr(from, ',') + 1;
		to = from + strcspn(from, ",\n");
		if (!value && *to == ',')
			to++;
		else if (!value)
			from--; /* the last column: its comma before it */
		memcpy(out + n, line, (size_t)(from - line));
		n += (size_t)(from - line);
		if (value) {
			strcpy(out + n, value);
			n += strlen(value);
		}
		strcpy(out + n, to);
	}
	free(base);
	return out;
}

/* Reading len bytes of text fails with st, at byte at, about column field ("": none). */
static void expect_error(const char *text, size_t len, enum osc_status st, int64_t at,
			 const char *field, const char *msg)
{
	struct osc_summary s;
	struct osc_error err;
	char line[2048], prefix[64];

	osc_summary_init(&s);
	cr_assert_eq(osc_summary_read_buffer("sum.csv", text, len, &s, &err), st,
		     "got %d (%s), want %d", err.code, err.message, st);
	cr_expect_eq(err.offset, at, "%s: offset %lld, want %lld", err.message,
		     (long long)err.offset, (long long)at);
	cr_expect_str_eq(err.field, field, "%s", err.message);
	cr_expect(strstr(err.message, msg), "message '%s' lacks '%s'", err.message, msg);
	cr_expect_eq(s.nr_runs + s.nr_rows + s.nr_calls, 0);
	cr_expect_null(s.trace);
	osc_error_format(&err, line, sizeof(line));
	if (at == OSC_NO_OFFSET)
		snprintf(prefix, sizeof(prefix), "sum.csv: field '%s': ", field);
	else
		snprintf(prefix, sizeof(prefix), "sum.csv: byte %lld: ", (long long)at);
	cr_expect(!strncmp(line, prefix, strlen(prefix)), "%s", line);
	for (const char *p = line; *p; p++)
		cr_expect((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte in %s", line);
	osc_summary_release(&s);
}

/* Column c of the first line of table set to value fails so. */
static void expect_field_error(const char *table, int c, const char *value,
			       enum osc_status st, const char *field, const char *msg)
{
	int64_t at;
	char *text = with_field(table, c, value, &at);

	expect_error(text, strlen(text), st, at, field, msg);
	free(text);
}

Test(summary_file, base_is_fine)
{
	char *text = base_text();
	struct osc_summary s;
	struct osc_error err;

	osc_summary_init(&s);
	cr_assert_eq(osc_summary_read_buffer("sum.csv", text, strlen(text), &s, &err), OSC_OK,
		     "%s", err.message);
	cr_expect_eq(s.nr_runs, 1);
	cr_expect_eq(s.rank.rank, 1);
	cr_expect_eq(s.rank.source, OSC_RANK_FILE_NAME);
	osc_summary_release(&s);
	/* the last line without its LF is complete */
	osc_summary_init(&s);
	cr_expect_eq(osc_summary_read_buffer("sum.csv", text, strlen(text) - 1, &s, &err), OSC_OK,
		     "%s", err.message);
	osc_summary_release(&s);
	free(text);
}

Test(summary_file, crlf_lines)
{
	char *text = base_text(), *crlf = malloc(strlen(text) * 2 + 1), *q = crlf;
	struct osc_summary s;
	struct osc_error err;

	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			*q++ = '\r';
		*q++ = *p;
	}
	*q = '\0';
	osc_summary_init(&s);
	cr_expect_eq(osc_summary_read_buffer("sum.csv", crlf, strlen(crlf), &s, &err), OSC_OK,
		     "%s", err.message);
	cr_expect_eq(s.nr_calls, 1);
	osc_summary_release(&s);
	free(crlf);
	free(text);
}

Test(summary_file, not_a_summary)
{
	static const char junk[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0";

	expect_error("", 0, OSC_EMPTY, 0, "", "empty");
	expect_error("{\"traceEvents\": []}\n", 20, OSC_NOT_TRACE, 0, "", "not a summary file");
	expect_error(junk, sizeof(junk) - 1, OSC_NOT_TRACE, 0, "", "not a summary file");
}

Test(summary_file, header)
{
	char *text = base_text();
	size_t header = (size_t)(strchr(text, '\n') - text + 1);

	/* a header and no record */
	expect_error(text, header, OSC_EMPTY, (int64_t)header, "", "no record");
	free(text);
	expect_field_error(NULL, OSC_SUMCOL_WALL, "wall", OSC_NOT_TRACE, "wall_ns",
			   "\"wall\" where version 1 has wall_ns");
	expect_field_error(NULL, OSC_SUMCOL_LEVEL, NULL, OSC_NOT_TRACE, "level",
			   "\"name\" where version 1 has level");
	expect_field_error(NULL, OSC_SUMCOL_PROTOCOL, NULL, OSC_NOT_TRACE, "protocol",
			   "ends before column protocol");
	expect_field_error(NULL, OSC_SUMCOL_PROTOCOL, "protocol,extra", OSC_NOT_TRACE, "",
			   "37 columns");
}

Test(summary_file, other_version)
{
	char *text = base_text(), *p;
	int64_t first = strchr(text, '\n') - text + 1;

	while ((p = strstr(text, "opscope-summary-1")))
		p[16] = '2';
	expect_error(text, strlen(text), OSC_NOT_TRACE, first, "format", "another version");
	free(text);
	/* its header may differ too: the version is still what is said */
	text = with_field(NULL, OSC_SUMCOL_HOST_TS, "host_ts_ns,new", &first);
	while ((p = strstr(text, "opscope-summary-1")))
		p[16] = '2';
	first = strchr(text, '\n') - text + 1;
	expect_error(text, strlen(text), OSC_NOT_TRACE, first, "format", "opscope-summary-2");
	free(text);
	expect_field_error("row", OSC_SUMCOL_FORMAT, "summary", OSC_NOT_TRACE, "format",
			   "not opscope-summary-1");
}

Test(summary_file, field_count)
{
	char *text = base_text();
	size_t len = strlen(text);
	char *cut;
	int64_t at;

	expect_field_error("row", OSC_SUMCOL_PROTOCOL, NULL, OSC_NOT_TRACE, "protocol",
			   "35 fields, expected 36");
	expect_field_error("row", OSC_SUMCOL_PROTOCOL, ",", OSC_NOT_TRACE, "", "37 fields");
	/* a last line cut short, without its LF */
	cut = malloc(len + 64);
	strcpy(cut, text);
	strcat(cut, "opscope-summary-1,row,t.json");
	expect_error(cut, strlen(cut), OSC_TRUNCATED, (int64_t)len, "rank", "ends after 3 of 36");
	/* ... or inside a quoted field */
	strcpy(cut + len, "opscope-summary-1,call,\"t.json");
	expect_error(cut, strlen(cut), OSC_TRUNCATED, (int64_t)len, "trace",
		     "inside a quoted field");
	free(cut);
	free(text);
	/* a blank line is a line of one field */
	text = with_field("call", OSC_SUMCOL_FORMAT, "\nopscope-summary-1", &at);
	expect_error(text, strlen(text), OSC_NOT_TRACE, at, "table", "1 fields");
	free(text);
}

/* The base text as the first files of version 1 were: no algorithm and protocol columns. */
static char *first_files_text(void)
{
	char *text = base_text(), *out = malloc(strlen(text) + 1), *o = out;

	for (char *line = text, *end; *line; line = end + 1) {
		char *cut;

		end = strchr(line, '\n');
		*end = '\0';
		cut = strrchr(line, ',');
		*cut = '\0';
		cut = strrchr(line, ',');
		*cut = '\0';
		o += sprintf(o, "%s\n", line);
	}
	free(text);
	return out;
}

Test(summary_file, first_files_without_algorithm)
{
	char *text = first_files_text(), bad[8192];
	struct osc_summary s;
	struct osc_error err;
	size_t at, nl;

	osc_summary_init(&s);
	cr_assert_eq(osc_summary_read_buffer("old.csv", text, strlen(text), &s, &err), OSC_OK,
		     "%s", err.message);
	cr_assert_eq(s.nr_calls, 1);
	cr_expect_str_eq(osc_summary_str(&s, s.calls[0].name), "allreduce");
	cr_expect_eq(s.calls[0].host_ts, 105);
	cr_expect_str_eq(osc_summary_str(&s, s.calls[0].algorithm), "");
	cr_expect_str_eq(osc_summary_str(&s, s.calls[0].protocol), "");
	osc_summary_release(&s);
	/* its lines have the header's count: a new line in an old file is an error */
	at = (size_t)(strstr(text, ",call,") - text);
	while (text[at - 1] != '\n')
		at--;
	nl = at + strcspn(text + at, "\n");
	cr_assert_lt(strlen(text) + 3, sizeof(bad));
	snprintf(bad, sizeof(bad), "%.*s,,%s", (int)nl, text, text + nl);
	expect_error(bad, strlen(bad), OSC_NOT_TRACE, (int64_t)at, "", "36 fields, expected 34");
	free(text);
}

Test(summary_file, bad_fields)
{
	expect_field_error("row", OSC_SUMCOL_COUNT, "3x", OSC_NOT_TRACE, "count",
			   "not a non-negative integer: \"3x\"");
	expect_field_error("row", OSC_SUMCOL_COUNT, "-3", OSC_NOT_TRACE, "count",
			   "not a non-negative integer: \"-3\"");
	expect_field_error("row", OSC_SUMCOL_COUNT, "18446744073709551616", OSC_NOT_TRACE,
			   "count", "out of range");
	expect_field_error("run", OSC_SUMCOL_TS, "1e2", OSC_NOT_TRACE, "ts_ns",
			   "not an integer: \"1e2\"");
	expect_field_error("run", OSC_SUMCOL_TS, "", OSC_NOT_TRACE, "ts_ns", "not an integer");
	expect_field_error("run", OSC_SUMCOL_TS, " 1", OSC_NOT_TRACE, "ts_ns", "not an integer");
	expect_field_error("run", OSC_SUMCOL_TS, "9223372036854775808", OSC_NOT_TRACE, "ts_ns",
			   "out of the int64 range");
	expect_field_error("run", OSC_SUMCOL_TS, "-9223372036854775809", OSC_NOT_TRACE, "ts_ns",
			   "out of the int64 range");
	expect_field_error("call", OSC_SUMCOL_SEQ, "4294967296", OSC_NOT_TRACE, "seq",
			   "out of range");
	expect_field_error("call", OSC_SUMCOL_BYTES, "nan", OSC_NOT_TRACE, "bytes",
			   "not a number");
	expect_field_error("call", OSC_SUMCOL_BYTES, "-1", OSC_NOT_TRACE, "bytes",
			   "not a finite number >= 0");
	expect_field_error("call", OSC_SUMCOL_BYTES, "1e999", OSC_NOT_TRACE, "bytes",
			   "not a finite number >= 0");
	expect_field_error("row", OSC_SUMCOL_TABLE, "rows", OSC_NOT_TRACE, "table",
			   "unknown table");
	expect_field_error("row", OSC_SUMCOL_LEVEL, "ops", OSC_NOT_TRACE, "level",
			   "unknown level: \"ops\"");
	expect_field_error("row", OSC_SUMCOL_LEVEL, "run", OSC_NOT_TRACE, "level",
			   "not a row level");
	expect_field_error("meta", OSC_SUMCOL_COUNT, "1", OSC_NOT_TRACE, "count",
			   "meta lines leave this column empty");
	expect_field_error("meta", OSC_SUMCOL_TEXT, "nobody", OSC_NOT_TRACE, "text",
			   "unknown rank source");
	expect_field_error("row", OSC_SUMCOL_NAME, "m\xffm", OSC_NOT_TRACE, "name", "not UTF-8");
	expect_field_error("row", OSC_SUMCOL_NAME, "m\"m", OSC_NOT_TRACE, "name",
			   "a quote inside an unquoted field");
	expect_field_error("row", OSC_SUMCOL_NAME, "\"m\"m", OSC_NOT_TRACE, "name",
			   "text after the closing quote");
	expect_field_error("row", OSC_SUMCOL_NAME, "m\rm", OSC_NOT_TRACE, "name",
			   "a CR without LF");
	/* a control byte of the file reaches the message escaped */
	expect_field_error("row", OSC_SUMCOL_COUNT, "\x1b[2J", OSC_NOT_TRACE, "count",
			   "not a non-negative integer");
}

Test(summary_file, nul_byte)
{
	int64_t at;
	char *text = with_field("row", OSC_SUMCOL_NAME, "m@m", &at);
	size_t len = strlen(text);

	*strchr(text + at, '@') = '\0';
	expect_error(text, len, OSC_NOT_TRACE, at, "name", "a NUL byte");
	free(text);
}

Test(summary_file, runs)
{
	char *text = base_text(), *twice;
	const char *run = strstr(text, "opscope-summary-1,run,");
	size_t run_len = (size_t)(strchr(run, '\n') + 1 - run), head = (size_t)(run - text);

	/* a row of a run no run line has */
	expect_field_error("row", OSC_SUMCOL_RUN, "5", OSC_NOT_TRACE, "run",
			   "run 5: no run line has this index");
	expect_field_error("call", OSC_SUMCOL_RUN, "1", OSC_NOT_TRACE, "run",
			   "run 1: no run line has this index");
	/* runs count from 0, each once */
	expect_field_error("run", OSC_SUMCOL_RUN, "1", OSC_NOT_TRACE, "run",
			   "run 1 in a file of 1 run lines");
	twice = malloc(strlen(text) + run_len + 1);
	memcpy(twice, text, head + run_len);
	strcpy(twice + head + run_len, run);
	expect_error(twice, strlen(twice), OSC_NOT_TRACE, (int64_t)(head + run_len), "run",
		     "a second line of run 0");
	free(twice);
	free(text);
}

Test(summary_file, one_rank_per_file)
{
	expect_field_error("row", OSC_SUMCOL_RANK, "2", OSC_NOT_TRACE, "rank",
			   "a second rank in one file");
	expect_field_error("call", OSC_SUMCOL_TRACE, "u.json", OSC_NOT_TRACE, "trace",
			   "a second trace in one file");
	expect_field_error("call", OSC_SUMCOL_WORLD_SIZE, "", OSC_NOT_TRACE, "world_size",
			   "not the world_size");
	expect_field_error("meta", OSC_SUMCOL_RANK, "-1", OSC_NOT_TRACE, "rank",
			   "not a non-negative integer");
}

Test(summary_file, duplicate_rows)
{
	char *text = base_text(), *twice;
	const char *row = strstr(text, "opscope-summary-1,row,");
	size_t row_len = (size_t)(strchr(row, '\n') + 1 - row), head = (size_t)(row - text);

	twice = malloc(strlen(text) + row_len + 1);
	memcpy(twice, text, head + row_len);
	strcpy(twice + head + row_len, row);
	expect_error(twice, strlen(twice), OSC_NOT_TRACE, OSC_NO_OFFSET, "name",
		     "two op rows of run 0 named \"mm\"");
	free(twice);
	free(text);
}

Test(summary_file, unknown_meta_ignored_and_any_order)
{
	char *text = base_text(), *moved;
	const char *meta = strstr(text, "opscope-summary-1,meta,");
	size_t meta_len = (size_t)(strchr(meta, '\n') + 1 - meta), head = (size_t)(meta - text);
	struct osc_summary s;
	struct osc_error err;

	/* the first meta line moved to the end, renamed to a name this version does not know */
	moved = malloc(strlen(text) + 16);
	memcpy(moved, text, head);
	strcpy(moved + head, meta + meta_len);
	strncat(moved, meta, meta_len);
	memcpy(strstr(moved + strlen(moved) - meta_len, "rank_source"), "rank_sourcX", 11);
	osc_summary_init(&s);
	cr_expect_eq(osc_summary_read_buffer("sum.csv", moved, strlen(moved), &s, &err), OSC_OK,
		     "%s", err.message);
	cr_expect_eq(s.rank.source, OSC_RANK_NONE);
	cr_expect_eq(s.nr_rows, 1);
	osc_summary_release(&s);
	free(moved);
	free(text);
}

Test(summary_file, files)
{
	char path[] = "/tmp/test_summary_file-XXXXXX";
	int fd = mkstemp(path);
	struct osc_summary a, b;
	struct osc_error err;
	FILE *f = fdopen(fd, "w");

	hostile(&a);
	cr_assert_eq(osc_summary_write(&a, f, path, &err), OSC_OK);
	fclose(f);
	osc_summary_init(&b);
	cr_assert_eq(osc_summary_read(path, &b, &err), OSC_OK, "%s", err.message);
	cr_expect_str_eq(b.path, path);
	expect_same(&a, &b);
	osc_summary_release(&b);
	unlink(path);
	osc_summary_init(&b);
	cr_expect_eq(osc_summary_read(path, &b, &err), OSC_IO);
	cr_expect_str_eq(err.subject, path);
	cr_expect_null(b.path);
	osc_summary_release(&b);
	osc_summary_release(&a);
}

/* The summaries of a real job, when the test data has them. */
Test(summary_file, ranks_data)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char pattern[4096];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/tests/data/ranks/*.csv", root ? root : ".");
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		cr_skip_test("no tests/data/ranks/*.csv");
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct osc_summary s;
		struct osc_error err;
		size_t len;
		char *text;

		osc_summary_init(&s);
		cr_expect_eq(osc_summary_read(g.gl_pathv[i], &s, &err), OSC_OK, "%s: %s",
			     g.gl_pathv[i], err.message);
		text = written(&s, &len);
		cr_expect(len > 0);
		free(text);
		osc_summary_release(&s);
	}
	globfree(&g);
}
