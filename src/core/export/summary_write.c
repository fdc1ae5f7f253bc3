/*
 * summary_write.c - a rank's summary as a summary file (summary_write.h).
 *
 * Each line is first an array of column texts (NULL: empty), then written
 * field by field with the CSV export's field writer (RFC 4180 quoting).
 * Names are written as the summary holds them (UTF-8, any other byte but
 * NUL): quoting keeps commas, quotes, CR and LF inside their field.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opscope/export/summary_write.h"
#include "opscope/load/summary_file.h"
#include "opscope/model/level.h"
#include "export/delimited.h"

/* One line being made: each column's text, numbers printed into num. */
struct line {
	const char *f[OSC_SUMCOL_NR];
	char num[OSC_SUMCOL_NR][32];
};

static void set_i64(struct line *l, enum osc_sum_column c, int64_t v)
{
	snprintf(l->num[c], sizeof(l->num[c]), "%" PRId64, v);
	l->f[c] = l->num[c];
}

static void set_u64(struct line *l, enum osc_sum_column c, uint64_t v)
{
	snprintf(l->num[c], sizeof(l->num[c]), "%" PRIu64, v);
	l->f[c] = l->num[c];
}

/* A line of table t of s: the columns every line has, the others empty. */
static void start(struct line *l, const struct osc_summary *s, enum osc_sum_table t)
{
	memset(l->f, 0, sizeof(l->f));
	l->f[OSC_SUMCOL_FORMAT] = OSC_SUMMARY_FORMAT;
	l->f[OSC_SUMCOL_TABLE] = osc_summary_table_name(t);
	l->f[OSC_SUMCOL_TRACE] = s->trace ? s->trace : "";
	if (s->rank.rank >= 0)
		set_i64(l, OSC_SUMCOL_RANK, s->rank.rank);
	if (s->rank.world_size >= 0)
		set_i64(l, OSC_SUMCOL_WORLD_SIZE, s->rank.world_size);
}

static void put_line(FILE *out, const struct line *l)
{
	for (int c = 0; c < OSC_SUMCOL_NR; c++) {
		if (c)
			putc(',', out);
		if (l->f[c])
			osc_csv_field(out, l->f[c], 0);
	}
	putc('\n', out);
}

static void put_meta(FILE *out, const struct osc_summary *s, enum osc_sum_meta m,
		     const char *text)
{
	struct line l;

	start(&l, s, OSC_SUMTAB_META);
	l.f[OSC_SUMCOL_NAME] = osc_summary_meta_name(m);
	l.f[OSC_SUMCOL_TEXT] = text;
	put_line(out, &l);
}

static void put_metas(FILE *out, const struct osc_summary *s)
{
	char events[32], bytes[32];

	snprintf(events, sizeof(events), "%" PRIu64, s->events);
	snprintf(bytes, sizeof(bytes), "%" PRIu64, s->input_bytes);
	put_meta(out, s, OSC_SUMMETA_RANK_SOURCE, osc_rank_source_name(s->rank.source));
	put_meta(out, s, OSC_SUMMETA_BACKEND, s->rank.backend);
	put_meta(out, s, OSC_SUMMETA_TRACE_FORMAT, osc_format_name(s->format));
	put_meta(out, s, OSC_SUMMETA_EVENTS, events);
	put_meta(out, s, OSC_SUMMETA_INPUT_BYTES, bytes);
	put_meta(out, s, OSC_SUMMETA_HAS_DEVICE, s->has_device ? "true" : "false");
	put_meta(out, s, OSC_SUMMETA_RUN_SOURCE, osc_summary_str(s, s->run_source));
}

static void put_run(FILE *out, const struct osc_summary *s, uint32_t i)
{
	const struct osc_sum_run *run = &s->runs[i];
	struct line l;

	start(&l, s, OSC_SUMTAB_RUN);
	set_u64(&l, OSC_SUMCOL_RUN, i);
	l.f[OSC_SUMCOL_NAME] = osc_summary_str(s, run->name);
	set_u64(&l, OSC_SUMCOL_COUNT, run->events);
	set_i64(&l, OSC_SUMCOL_TS, run->ts);
	set_i64(&l, OSC_SUMCOL_WALL, run->wall);
	set_i64(&l, OSC_SUMCOL_BUSY, run->busy);
	set_i64(&l, OSC_SUMCOL_IDLE, run->idle);
	for (int c = 0; c < OSC_SUM_CATS; c++)
		set_i64(&l, OSC_SUMCOL_COMPUTE + c, run->cat[c]);
	set_i64(&l, OSC_SUMCOL_EXPOSED_COMM, run->exposed_comm);
	set_i64(&l, OSC_SUMCOL_HOST_BUSY, run->host_busy);
	set_i64(&l, OSC_SUMCOL_DEVICE_TIME, run->device_time);
	put_line(out, &l);
}

static void put_row(FILE *out, const struct osc_summary *s, const struct osc_sum_row *row)
{
	struct line l;

	start(&l, s, OSC_SUMTAB_ROW);
	set_u64(&l, OSC_SUMCOL_RUN, row->run);
	l.f[OSC_SUMCOL_LEVEL] = osc_level_name((enum osc_level)row->level);
	l.f[OSC_SUMCOL_NAME] = osc_summary_str(s, row->key);
	if (row->kernel != OSC_STR_EMPTY)
		l.f[OSC_SUMCOL_TEXT] = osc_summary_str(s, row->kernel);
	set_u64(&l, OSC_SUMCOL_COUNT, row->count);
	set_u64(&l, OSC_SUMCOL_KERNELS, row->kernels);
	set_i64(&l, OSC_SUMCOL_TOTAL, row->total);
	set_i64(&l, OSC_SUMCOL_SELF, row->self);
	set_i64(&l, OSC_SUMCOL_DEVICE, row->dev);
	set_i64(&l, OSC_SUMCOL_DEVICE_TOTAL, row->dev_total);
	set_i64(&l, OSC_SUMCOL_MIN, row->min);
	set_i64(&l, OSC_SUMCOL_MAX, row->max);
	put_line(out, &l);
}

static void put_call(FILE *out, const struct osc_summary *s, const struct osc_sum_call *call)
{
	struct line l;

	start(&l, s, OSC_SUMTAB_CALL);
	if (call->run != OSC_NONE)
		set_u64(&l, OSC_SUMCOL_RUN, call->run);
	l.f[OSC_SUMCOL_NAME] = osc_summary_str(s, call->name);
	l.f[OSC_SUMCOL_TEXT] = osc_summary_str(s, call->dtype);
	l.f[OSC_SUMCOL_GROUP] = osc_summary_str(s, call->group);
	l.f[OSC_SUMCOL_ALGORITHM] = osc_summary_str(s, call->algorithm);
	l.f[OSC_SUMCOL_PROTOCOL] = osc_summary_str(s, call->protocol);
	set_i64(&l, OSC_SUMCOL_GROUP_SIZE, call->group_size);
	if (!isnan(call->bytes)) {
		snprintf(l.num[OSC_SUMCOL_BYTES], sizeof(l.num[0]), "%.17g", call->bytes);
		l.f[OSC_SUMCOL_BYTES] = l.num[OSC_SUMCOL_BYTES];
	}
	set_i64(&l, OSC_SUMCOL_TS, call->ts);
	set_i64(&l, OSC_SUMCOL_DUR, call->dur);
	set_u64(&l, OSC_SUMCOL_SEQ, call->seq);
	set_i64(&l, OSC_SUMCOL_HOST_TS, call->host_ts);
	put_line(out, &l);
}

enum osc_status osc_summary_write(const struct osc_summary *s, FILE *out, const char *name,
				  struct osc_error *err)
{
	for (int c = 0; c < OSC_SUMCOL_NR; c++)
		fprintf(out, "%s%s", c ? "," : "", osc_summary_column_name(c));
	putc('\n', out);
	put_metas(out, s);
	for (size_t i = 0; i < s->nr_runs; i++)
		put_run(out, s, (uint32_t)i);
	for (size_t i = 0; i < s->nr_rows; i++)
		put_row(out, s, &s->rows[i]);
	for (size_t i = 0; i < s->nr_calls; i++)
		put_call(out, s, &s->calls[i]);
	if (fflush(out) || ferror(out))
		return osc_error_set(err, OSC_IO, name, OSC_NO_OFFSET, NULL, "write failed: %s",
				     strerror(errno ? errno : EIO));
	return OSC_OK;
}
