/*
 * summary_file.c - reading a summary file (summary_file.h).
 *
 * The whole input is taken at once (a plain file is mapped, see input.h),
 * then one pass of a CSV scanner cuts each line into byte spans, one per
 * column, which are checked and stored. Nothing is allocated per line:
 * strings are interned in the summary's table, a field with doubled quotes
 * is undone in one scratch buffer.
 *
 * Limits:
 * - The first error stops the read: one line naming the file, the byte
 *   offset of the line and the column, with the bad value quoted (its first
 *   SHOW_MAX bytes; osc_error_format escapes control characters).
 * - Lines end in LF or CRLF; a bare CR, a quote inside an unquoted field,
 *   text after a closing quote, a NUL byte and text that is not UTF-8 are
 *   errors, and so is a column that a line's table does not use holding text.
 * - The last line may lack its LF when it is complete; one that ends inside
 *   a quoted field or before its last column is OSC_TRUNCATED.
 * - Two row lines of one (level, run, name) are an error without an offset
 *   (found once the rows are sorted).
 * - A text is at most 4 GiB (the string table's lengths are 32-bit).
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/load/load.h"
#include "opscope/load/summary_file.h"
#include "opscope/model/level.h"
#include "load/input.h"

#define SHOW_MAX 40 /* bytes of a bad value quoted in a message */
#define HEADER_START "format,table,"

static const char *const column_names[] = {
#define OSC_SUMCOL_NAME(name, text) text,
	OSC_SUMCOL_LIST(OSC_SUMCOL_NAME)
#undef OSC_SUMCOL_NAME
};

static const char *const table_names[] = {
#define OSC_SUMTAB_NAME(name, text) text,
	OSC_SUMTAB_LIST(OSC_SUMTAB_NAME)
#undef OSC_SUMTAB_NAME
};

static const char *const meta_names[] = {
#define OSC_SUMMETA_NAME(name, text) text,
	OSC_SUMMETA_LIST(OSC_SUMMETA_NAME)
#undef OSC_SUMMETA_NAME
};

const char *osc_summary_column_name(enum osc_sum_column c)
{
	return (unsigned)c < OSC_SUMCOL_NR ? column_names[c] : "unknown";
}

const char *osc_summary_table_name(enum osc_sum_table t)
{
	return (unsigned)t < OSC_SUMTAB_NR ? table_names[t] : "unknown";
}

const char *osc_summary_meta_name(enum osc_sum_meta m)
{
	return (unsigned)m < OSC_SUMMETA_NR ? meta_names[m] : "unknown";
}

bool osc_summary_sniff(const void *data, size_t len)
{
	return len >= strlen(HEADER_START) && !memcmp(data, HEADER_START, strlen(HEADER_START));
}

bool osc_summary_is_file(const char *path)
{
	char head[64];
	struct stat sb;
	int fd = !stat(path, &sb) && S_ISREG(sb.st_mode) ? open(path, O_RDONLY) : -1;
	ssize_t got = fd >= 0 ? read(fd, head, sizeof(head)) : -1;

	if (fd >= 0)
		close(fd);
	return got > 0 && osc_summary_sniff(head, (size_t)got);
}

#define COL(c) ((uint64_t)1 << OSC_SUMCOL_##c)
#define EVERY_LINE (COL(FORMAT) | COL(TABLE) | COL(TRACE) | COL(RANK) | COL(WORLD_SIZE))

/* The columns each table uses; the others must be empty. */
static const uint64_t table_columns[OSC_SUMTAB_NR] = {
	[OSC_SUMTAB_META] = EVERY_LINE | COL(NAME) | COL(TEXT),
	[OSC_SUMTAB_RUN] = EVERY_LINE | COL(RUN) | COL(NAME) | COL(COUNT) | COL(TS) | COL(WALL) |
			   COL(BUSY) | COL(IDLE) | COL(COMPUTE) | COL(COMM) | COL(MEMCPY) |
			   COL(MEMSET) | COL(EXPOSED_COMM) | COL(HOST_BUSY) | COL(DEVICE_TIME),
	[OSC_SUMTAB_ROW] = EVERY_LINE | COL(RUN) | COL(LEVEL) | COL(NAME) | COL(TEXT) | COL(COUNT) |
			   COL(KERNELS) | COL(TOTAL) | COL(SELF) | COL(DEVICE) |
			   COL(DEVICE_TOTAL) | COL(MIN) | COL(MAX),
	[OSC_SUMTAB_CALL] = EVERY_LINE | COL(RUN) | COL(NAME) | COL(TEXT) | COL(GROUP) |
			    COL(GROUP_SIZE) | COL(BYTES) | COL(TS) | COL(DUR) | COL(SEQ) |
			    COL(HOST_TS) | COL(ALGORITHM) | COL(PROTOCOL),
};

/* A field: bytes of the input, inside the quotes when quoted. */
struct span {
	const char *p;
	size_t len;
	bool doubled; /* quoted with doubled quotes inside: undo them before use */
};

/* Where a run line was and the index it gave (runs are placed by index at the end). */
struct run_line {
	uint32_t index;
	int64_t at;
};

struct reader {
	const char *name;    /* subject of messages */
	const char *data, *end;
	const char *line;    /* the line being read */
	struct span f[OSC_SUMCOL_NR];
	size_t nr_fields;    /* of the line, nr_cols or not */
	size_t nr_cols;      /* the header's: OSC_SUMCOL_NR or OSC_SUMCOL_FIRST_NR */
	bool unended;        /* the line is the last and has no LF */
	struct osc_summary *s;
	struct osc_error *err;
	char *scratch;       /* a field with its doubled quotes undone */
	size_t scratch_alloc;
	size_t trace_len;    /* of s->trace, once the first record set it */
	unsigned metas;      /* bit per meta name seen */
	struct run_line *run_lines; /* per run of s, in file order */
	size_t alloc_run_lines;
	uint32_t max_ref;    /* the highest run a row or call names, */
	int64_t max_ref_at;  /* at this line (-1: none named) */
};

/* Fail at the current line about column c (OSC_SUMCOL_NR: no column). */
__attribute__((format(printf, 4, 5))) static enum osc_status
fail(struct reader *r, enum osc_status st, enum osc_sum_column c, const char *fmt, ...)
{
	char msg[sizeof(r->err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return osc_error_set(r->err, st, r->name, r->line - r->data,
			     c < OSC_SUMCOL_NR ? column_names[c] : NULL, "%s", msg);
}

/* How many of p's n bytes a message shows: SHOW_MAX at most, whole UTF-8 characters. */
static int shown(const char *p, size_t n)
{
	if (n <= SHOW_MAX)
		return (int)n;
	n = SHOW_MAX;
	while (n && ((unsigned char)p[n] & 0xc0) == 0x80)
		n--;
	return (int)n;
}

/* Fail about the value of column c: `what: "value"`. */
static enum osc_status bad_value(struct reader *r, enum osc_sum_column c, const char *what)
{
	const struct span *f = &r->f[c];
	int n = shown(f->p, f->len);

	return fail(r, OSC_NOT_TRACE, c, "%s: \"%.*s%s\"", what, n, f->p,
		    (size_t)n < f->len ? "..." : "");
}

/* Bytes that end an unquoted field, or are bad in one. */
static const bool stops[256] = {
	[0] = true, [','] = true, ['"'] = true, ['\n'] = true, ['\r'] = true,
};

/* The quoted field at p (after its opening quote) into *f; the byte after its closing quote. */
static const char *quoted(struct reader *r, const char *p, struct span *f)
{
	const char *q = p;

	f->p = p;
	for (;;) {
		q = memchr(q, '"', (size_t)(r->end - q));
		if (!q)
			return NULL;
		if (q + 1 < r->end && q[1] == '"') {
			f->doubled = true;
			q += 2;
			continue;
		}
		f->len = (size_t)(q - p);
		return q + 1;
	}
}

/*
 * Cut the line at r->line into fields: r->f gets the first OSC_SUMCOL_NR
 * (empty past the line's last), r->nr_fields counts them all, *next gets
 * where the next line starts (the end of the input when this one has no
 * LF: r->unended).
 */
static enum osc_status split(struct reader *r, const char **next)
{
	const char *p = r->line;

	r->nr_fields = 0;
	for (int c = 0; c < OSC_SUMCOL_NR; c++)
		r->f[c] = (struct span){ p, 0, false };
	for (;;) {
		struct span f = { p, 0, false };
		bool was_quoted = p < r->end && *p == '"';
		enum osc_sum_column c = r->nr_fields < OSC_SUMCOL_NR ? r->nr_fields : OSC_SUMCOL_NR;

		if (was_quoted) {
			p = quoted(r, p + 1, &f);
			if (!p)
				return fail(r, OSC_TRUNCATED, c, "the file ends inside a quoted field");
		} else {
			while (p < r->end && !stops[(unsigned char)*p])
				p++;
			f.len = (size_t)(p - f.p);
		}
		if ((was_quoted && memchr(f.p, 0, f.len)) || (p < r->end && !*p))
			return fail(r, OSC_NOT_TRACE, c, "a NUL byte");
		if (c < OSC_SUMCOL_NR)
			r->f[c] = f;
		r->nr_fields++;
		r->unended = p == r->end;
		if (p < r->end && *p == ',') {
			p++;
			continue;
		}
		if (r->unended || *p == '\n' || (*p == '\r' && p + 1 < r->end && p[1] == '\n')) {
			*next = r->unended ? p : p + (*p == '\r' ? 2 : 1);
			return OSC_OK;
		}
		return fail(r, OSC_NOT_TRACE, c, "%s",
			    was_quoted ? "text after the closing quote" :
			    *p == '"'  ? "a quote inside an unquoted field (quote the field)" :
					 "a CR without LF outside quotes");
	}
}

/* A record line has every column (a last line cut short is OSC_TRUNCATED). */
static enum osc_status check_count(struct reader *r)
{
	size_t nr = r->nr_fields;

	if (nr == r->nr_cols)
		return OSC_OK;
	if (nr > r->nr_cols)
		return fail(r, OSC_NOT_TRACE, OSC_SUMCOL_NR, "%zu fields, expected %zu", nr,
			    r->nr_cols);
	if (r->unended)
		return fail(r, OSC_TRUNCATED, nr, "the file ends after %zu of %zu fields", nr,
			    r->nr_cols);
	return fail(r, OSC_NOT_TRACE, nr, "%zu fields, expected %zu", nr, r->nr_cols);
}

/* Column c's text, its doubled quotes undone (valid until the next call). */
static const char *text_of(struct reader *r, enum osc_sum_column c, size_t *len)
{
	const struct span *f = &r->f[c];
	size_t n = 0;

	if (!f->doubled) {
		*len = f->len;
		return f->p;
	}
	OSC_GROW(r->scratch, f->len, r->scratch_alloc);
	for (size_t i = 0; i < f->len; i++) {
		r->scratch[n++] = f->p[i];
		i += f->p[i] == '"'; /* the second quote of a pair */
	}
	*len = n;
	return r->scratch;
}

/* Whether column c's text is word. */
static bool is(struct reader *r, enum osc_sum_column c, const char *word)
{
	size_t len;
	const char *p = text_of(r, c, &len);

	return len == strlen(word) && !memcmp(p, word, len);
}

/* Column c's text into buf (size bytes with the NUL); false when longer. */
static bool copy_text(struct reader *r, enum osc_sum_column c, char *buf, size_t size)
{
	size_t len;
	const char *p = text_of(r, c, &len);

	if (len >= size)
		return false;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return true;
}

static bool is_utf8(const char *s)
{
	for (size_t n; *s; s += n)
		if (osc_utf8_decode(s, &n) < 0)
			return false;
	return true;
}

/* Column c interned in the summary; text that is not UTF-8 is an error. */
static enum osc_status get_str(struct reader *r, enum osc_sum_column c, osc_str *out)
{
	size_t len, before = r->s->strs.count;
	const char *p = text_of(r, c, &len);

	if (len > UINT32_MAX) /* the string table's limit */
		return fail(r, OSC_NOT_TRACE, c, "a text longer than 4 GiB");
	*out = osc_strtab_intern(&r->s->strs, p, len);
	if (r->s->strs.count > before && !is_utf8(osc_summary_str(r->s, *out)))
		return bad_value(r, c, "not UTF-8");
	return OSC_OK;
}

/* What the decimal digits of a span are. */
enum number { NUMBER_OK, NUMBER_BAD, NUMBER_BIG };

/* The digits p[0..n) (at least one, nothing else) as a number at most max into *out. */
static enum number digits(const char *p, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool big = false;

	if (!n)
		return NUMBER_BAD;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)((unsigned char)p[i] - '0');

		if (d > 9)
			return NUMBER_BAD;
		if (v > (max - d) / 10)
			big = true;
		else
			v = v * 10 + d;
	}
	*out = v;
	return big ? NUMBER_BIG : NUMBER_OK;
}

/* Column c as an integer from 0 to max. */
static enum osc_status get_u64(struct reader *r, enum osc_sum_column c, uint64_t max,
			       uint64_t *out)
{
	const struct span *f = &r->f[c];

	switch (digits(f->p, f->len, max, out)) {
	case NUMBER_OK:
		return OSC_OK;
	case NUMBER_BAD:
		return bad_value(r, c, "not a non-negative integer");
	default:
		return fail(r, OSC_NOT_TRACE, c, "out of range (0 to %llu): \"%.*s\"",
			    (unsigned long long)max, shown(f->p, f->len), f->p);
	}
}

/* Column c as an int64. */
static enum osc_status get_i64(struct reader *r, enum osc_sum_column c, int64_t *out)
{
	const struct span *f = &r->f[c];
	bool neg = f->len && f->p[0] == '-';
	uint64_t v;

	switch (digits(f->p + neg, f->len - neg, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &v)) {
	case NUMBER_OK:
		*out = !neg ? (int64_t)v : v > INT64_MAX ? INT64_MIN : -(int64_t)v;
		return OSC_OK;
	case NUMBER_BAD:
		return bad_value(r, c, "not an integer");
	default:
		return bad_value(r, c, "out of the int64 range");
	}
}

/* Column c: an integer from 0 to INT64_MAX, or -1 when empty (rank, world_size). */
static enum osc_status get_optional(struct reader *r, enum osc_sum_column c, int64_t *out)
{
	uint64_t v;
	enum osc_status st;

	if (!r->f[c].len) {
		*out = -1;
		return OSC_OK;
	}
	st = get_u64(r, c, INT64_MAX, &v);
	*out = (int64_t)v;
	return st;
}

/* Column c as a run index: OSC_NONE when empty and empty_ok. Remembers the highest named. */
static enum osc_status get_run(struct reader *r, enum osc_sum_column c, bool empty_ok,
			       uint32_t *out)
{
	uint64_t v;
	enum osc_status st;

	if (empty_ok && !r->f[c].len) {
		*out = OSC_NONE;
		return OSC_OK;
	}
	st = get_u64(r, c, OSC_NONE - 1, &v);
	*out = (uint32_t)v;
	return st;
}

/* Note that a row or call names run. */
static void refer(struct reader *r, uint32_t run)
{
	if (run != OSC_NONE && (r->max_ref_at < 0 || run > r->max_ref)) {
		r->max_ref = run;
		r->max_ref_at = r->line - r->data;
	}
}

/* The bytes column: a finite number >= 0, NaN when empty. */
static enum osc_status get_bytes(struct reader *r, double *out)
{
	const struct span *f = &r->f[OSC_SUMCOL_BYTES];
	char buf[64], *end;

	*out = NAN;
	if (!f->len)
		return OSC_OK;
	if (f->len >= sizeof(buf) || f->len != strspn(f->p, "0123456789.eE+-"))
		return bad_value(r, OSC_SUMCOL_BYTES, "not a number");
	memcpy(buf, f->p, f->len);
	buf[f->len] = '\0';
	*out = strtod(buf, &end);
	if (*end || !isfinite(*out) || *out < 0)
		return bad_value(r, OSC_SUMCOL_BYTES, "not a finite number >= 0");
	return OSC_OK;
}

/* Whether a format field names a summary format other than ours. */
static bool other_version(const struct span *f)
{
	static const char family[] = "opscope-summary-";

	return f->len > strlen(family) && !memcmp(f->p, family, strlen(family)) &&
	       !(f->len == strlen(OSC_SUMMARY_FORMAT) && !memcmp(f->p, OSC_SUMMARY_FORMAT, f->len));
}

/* The format column: version 1. */
static enum osc_status check_format(struct reader *r)
{
	if (is(r, OSC_SUMCOL_FORMAT, OSC_SUMMARY_FORMAT))
		return OSC_OK;
	return bad_value(r, OSC_SUMCOL_FORMAT,
			 other_version(&r->f[OSC_SUMCOL_FORMAT]) ?
				 "another version of the summary format (this opscope reads "
				 OSC_SUMMARY_FORMAT ")" :
				 "not " OSC_SUMMARY_FORMAT);
}

/*
 * The header: the columns of version 1 in their order (all, or the first
 * OSC_SUMCOL_FIRST_NR: r->nr_cols). When it differs and the first record
 * is of another version, that is the error.
 */
static enum osc_status check_header(struct reader *r, const char **next)
{
	enum osc_status st = split(r, next);
	size_t c = 0, nr = r->nr_fields < OSC_SUMCOL_NR ? r->nr_fields : OSC_SUMCOL_NR;

	if (st != OSC_OK)
		return st;
	while (c < nr && is(r, c, column_names[c]))
		c++;
	if (c == r->nr_fields && (c == OSC_SUMCOL_NR || c == OSC_SUMCOL_FIRST_NR)) {
		r->nr_cols = c;
		return OSC_OK;
	}
	if (*next < r->end) {
		const char *p = *next;
		struct span first = { p, 0, false };

		while (p < r->end && !stops[(unsigned char)*p])
			p++;
		first.len = (size_t)(p - first.p);
		if (other_version(&first)) {
			r->line = *next;
			r->f[OSC_SUMCOL_FORMAT] = first;
			return check_format(r);
		}
	}
	if (c < nr)
		return fail(r, OSC_NOT_TRACE, c, "the header has \"%.*s\" where version 1 has %s",
			    shown(r->f[c].p, r->f[c].len), r->f[c].p, column_names[c]);
	if (c < OSC_SUMCOL_NR)
		return fail(r, OSC_NOT_TRACE, c, "the header ends before column %s",
			    column_names[c]);
	return fail(r, OSC_NOT_TRACE, OSC_SUMCOL_NR, "the header has %zu columns, version 1 has %d",
		    r->nr_fields, OSC_SUMCOL_NR);
}

/* The table column, and that the columns it does not use are empty. */
static enum osc_status get_table(struct reader *r, enum osc_sum_table *t)
{
	int n = 0;

	while (n < OSC_SUMTAB_NR && !is(r, OSC_SUMCOL_TABLE, table_names[n]))
		n++;
	if (n == OSC_SUMTAB_NR)
		return bad_value(r, OSC_SUMCOL_TABLE, "unknown table (meta, run, row or call)");
	*t = (enum osc_sum_table)n;
	for (int c = 0; c < OSC_SUMCOL_NR; c++)
		if (r->f[c].len && !(table_columns[n] >> c & 1))
			return fail(r, OSC_NOT_TRACE, c, "%s lines leave this column empty",
				    table_names[n]);
	return OSC_OK;
}

/* trace, rank, world_size: the first record's, then the same on every line. */
static enum osc_status check_rank(struct reader *r)
{
	struct osc_summary *s = r->s;
	int64_t rank, world;
	size_t len;
	const char *trace;
	enum osc_status st;

	if ((st = get_optional(r, OSC_SUMCOL_RANK, &rank)) != OSC_OK ||
	    (st = get_optional(r, OSC_SUMCOL_WORLD_SIZE, &world)) != OSC_OK)
		return st;
	trace = text_of(r, OSC_SUMCOL_TRACE, &len);
	if (!s->trace) {
		s->trace = osc_xstrndup(trace, len);
		r->trace_len = len;
		s->rank.rank = rank;
		s->rank.world_size = world;
		return is_utf8(s->trace) ? OSC_OK : bad_value(r, OSC_SUMCOL_TRACE, "not UTF-8");
	}
	if (len != r->trace_len || memcmp(trace, s->trace, len))
		return bad_value(r, OSC_SUMCOL_TRACE,
				 "a second trace in one file (one file holds one rank)");
	if (rank != s->rank.rank)
		return bad_value(r, OSC_SUMCOL_RANK,
				 "a second rank in one file (one file holds one rank)");
	if (world != s->rank.world_size)
		return bad_value(r, OSC_SUMCOL_WORLD_SIZE, "not the world_size of the lines before");
	return OSC_OK;
}

static enum osc_status read_meta(struct reader *r)
{
	struct osc_summary *s = r->s;
	char text[32];
	int m = 0;

	while (m < OSC_SUMMETA_NR && !is(r, OSC_SUMCOL_NAME, meta_names[m]))
		m++;
	if (m == OSC_SUMMETA_NR)
		return OSC_OK; /* a later minor addition */
	if (r->metas >> m & 1)
		return bad_value(r, OSC_SUMCOL_NAME, "a second meta line of this name");
	r->metas |= 1u << m;
	switch ((enum osc_sum_meta)m) {
	case OSC_SUMMETA_RANK_SOURCE:
		if (!copy_text(r, OSC_SUMCOL_TEXT, text, sizeof(text)) ||
		    !osc_rank_source_from_name(text, &s->rank.source))
			return bad_value(r, OSC_SUMCOL_TEXT, "unknown rank source");
		return OSC_OK;
	case OSC_SUMMETA_BACKEND:
		if (!copy_text(r, OSC_SUMCOL_TEXT, s->rank.backend, sizeof(s->rank.backend)))
			return bad_value(r, OSC_SUMCOL_TEXT, "a backend longer than 31 bytes");
		return is_utf8(s->rank.backend) ? OSC_OK :
						  bad_value(r, OSC_SUMCOL_TEXT, "not UTF-8");
	case OSC_SUMMETA_TRACE_FORMAT:
		for (int f = 0; f < OSC_FORMAT_COUNT; f++) {
			if (is(r, OSC_SUMCOL_TEXT, osc_format_name((enum osc_format)f))) {
				s->format = (enum osc_format)f;
				return OSC_OK;
			}
		}
		return bad_value(r, OSC_SUMCOL_TEXT, "unknown trace format");
	case OSC_SUMMETA_EVENTS:
		return get_u64(r, OSC_SUMCOL_TEXT, UINT64_MAX, &s->events);
	case OSC_SUMMETA_INPUT_BYTES:
		return get_u64(r, OSC_SUMCOL_TEXT, UINT64_MAX, &s->input_bytes);
	case OSC_SUMMETA_HAS_DEVICE:
		s->has_device = is(r, OSC_SUMCOL_TEXT, "true");
		return s->has_device || is(r, OSC_SUMCOL_TEXT, "false") ?
			       OSC_OK :
			       bad_value(r, OSC_SUMCOL_TEXT, "not true or false");
	default:
		return get_str(r, OSC_SUMCOL_TEXT, &s->run_source);
	}
}

/* A column to read as an int64 and where it goes. */
struct int_field {
	enum osc_sum_column c;
	int64_t *to;
};

static enum osc_status get_ints(struct reader *r, const struct int_field *f, size_t n)
{
	enum osc_status st = OSC_OK;

	for (size_t i = 0; i < n && st == OSC_OK; i++)
		st = get_i64(r, f[i].c, f[i].to);
	return st;
}

static enum osc_status read_run(struct reader *r)
{
	struct osc_sum_run run = { 0 };
	const struct int_field times[] = {
		{ OSC_SUMCOL_TS, &run.ts },
		{ OSC_SUMCOL_WALL, &run.wall },
		{ OSC_SUMCOL_BUSY, &run.busy },
		{ OSC_SUMCOL_IDLE, &run.idle },
		{ OSC_SUMCOL_COMPUTE, &run.cat[0] },
		{ OSC_SUMCOL_COMM, &run.cat[1] },
		{ OSC_SUMCOL_MEMCPY, &run.cat[2] },
		{ OSC_SUMCOL_MEMSET, &run.cat[3] },
		{ OSC_SUMCOL_EXPOSED_COMM, &run.exposed_comm },
		{ OSC_SUMCOL_HOST_BUSY, &run.host_busy },
		{ OSC_SUMCOL_DEVICE_TIME, &run.device_time },
	};
	uint32_t index;
	enum osc_status st;

	if ((st = get_run(r, OSC_SUMCOL_RUN, false, &index)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_NAME, &run.name)) != OSC_OK ||
	    (st = get_u64(r, OSC_SUMCOL_COUNT, UINT64_MAX, &run.events)) != OSC_OK ||
	    (st = get_ints(r, times, sizeof(times) / sizeof(times[0]))) != OSC_OK)
		return st;
	osc_summary_add_run(r->s, &run);
	OSC_GROW(r->run_lines, r->s->nr_runs, r->alloc_run_lines);
	r->run_lines[r->s->nr_runs - 1] = (struct run_line){ index, r->line - r->data };
	return OSC_OK;
}

static enum osc_status read_row(struct reader *r)
{
	struct osc_sum_row row = { 0 };
	const struct int_field sums[] = {
		{ OSC_SUMCOL_TOTAL, &row.total },
		{ OSC_SUMCOL_SELF, &row.self },
		{ OSC_SUMCOL_DEVICE, &row.dev },
		{ OSC_SUMCOL_DEVICE_TOTAL, &row.dev_total },
		{ OSC_SUMCOL_MIN, &row.min },
		{ OSC_SUMCOL_MAX, &row.max },
	};
	char level[16];
	enum osc_level l;
	enum osc_status st;

	if (!copy_text(r, OSC_SUMCOL_LEVEL, level, sizeof(level)) ||
	    !osc_level_from_name(level, &l))
		return bad_value(r, OSC_SUMCOL_LEVEL, "unknown level");
	if (l == OSC_LEVEL_RUN)
		return bad_value(r, OSC_SUMCOL_LEVEL, "not a row level (runs are run lines)");
	row.level = (uint8_t)l;
	if ((st = get_run(r, OSC_SUMCOL_RUN, false, &row.run)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_NAME, &row.key)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_TEXT, &row.kernel)) != OSC_OK ||
	    (st = get_u64(r, OSC_SUMCOL_COUNT, UINT64_MAX, &row.count)) != OSC_OK ||
	    (st = get_u64(r, OSC_SUMCOL_KERNELS, UINT64_MAX, &row.kernels)) != OSC_OK ||
	    (st = get_ints(r, sums, sizeof(sums) / sizeof(sums[0]))) != OSC_OK)
		return st;
	refer(r, row.run);
	osc_summary_add_row(r->s, &row);
	return OSC_OK;
}

static enum osc_status read_call(struct reader *r)
{
	struct osc_sum_call call = { 0 };
	const struct int_field ints[] = {
		{ OSC_SUMCOL_GROUP_SIZE, &call.group_size },
		{ OSC_SUMCOL_TS, &call.ts },
		{ OSC_SUMCOL_DUR, &call.dur },
		{ OSC_SUMCOL_HOST_TS, &call.host_ts },
	};
	uint64_t seq;
	enum osc_status st;

	if ((st = get_run(r, OSC_SUMCOL_RUN, true, &call.run)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_NAME, &call.name)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_TEXT, &call.dtype)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_GROUP, &call.group)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_ALGORITHM, &call.algorithm)) != OSC_OK ||
	    (st = get_str(r, OSC_SUMCOL_PROTOCOL, &call.protocol)) != OSC_OK ||
	    (st = get_bytes(r, &call.bytes)) != OSC_OK ||
	    (st = get_u64(r, OSC_SUMCOL_SEQ, UINT32_MAX, &seq)) != OSC_OK ||
	    (st = get_ints(r, ints, sizeof(ints) / sizeof(ints[0]))) != OSC_OK)
		return st;
	call.seq = (uint32_t)seq;
	refer(r, call.run);
	osc_summary_add_call(r->s, &call);
	return OSC_OK;
}

static enum osc_status read_record(struct reader *r)
{
	enum osc_sum_table t = OSC_SUMTAB_META;
	enum osc_status st;

	if ((st = check_count(r)) != OSC_OK || (st = check_format(r)) != OSC_OK ||
	    (st = get_table(r, &t)) != OSC_OK || (st = check_rank(r)) != OSC_OK)
		return st;
	switch (t) {
	case OSC_SUMTAB_META:
		return read_meta(r);
	case OSC_SUMTAB_RUN:
		return read_run(r);
	case OSC_SUMTAB_ROW:
		return read_row(r);
	default:
		return read_call(r);
	}
}

/* Runs in index order (0 .. N-1, each once); every run a row or call names is one. */
static enum osc_status place_runs(struct reader *r)
{
	struct osc_summary *s = r->s;
	size_t n = s->nr_runs;
	struct osc_sum_run *placed = osc_xcalloc(n ? n : 1, sizeof(*placed));
	bool *seen = osc_xcalloc(n ? n : 1, sizeof(*seen));
	enum osc_status st = OSC_OK;

	for (size_t i = 0; i < n && st == OSC_OK; i++) {
		uint32_t index = r->run_lines[i].index;

		r->line = r->data + r->run_lines[i].at;
		if (index >= n)
			st = fail(r, OSC_NOT_TRACE, OSC_SUMCOL_RUN,
				  "run %u in a file of %zu run lines (runs count from 0)", index, n);
		else if (seen[index])
			st = fail(r, OSC_NOT_TRACE, OSC_SUMCOL_RUN, "a second line of run %u", index);
		else
			placed[index] = s->runs[i];
		if (index < n)
			seen[index] = true;
	}
	free(seen);
	if (st != OSC_OK) {
		free(placed);
		return st;
	}
	free(s->runs);
	s->runs = placed;
	s->alloc_runs = n ? n : 1;
	if (r->max_ref_at >= 0 && r->max_ref >= n) {
		r->line = r->data + r->max_ref_at;
		return fail(r, OSC_NOT_TRACE, OSC_SUMCOL_RUN, "run %u: no run line has this index",
			    r->max_ref);
	}
	return OSC_OK;
}

/* No two rows of one (level, run, name) once sorted. */
static enum osc_status check_rows(struct reader *r)
{
	const struct osc_summary *s = r->s;

	for (size_t i = 1; i < s->nr_rows; i++) {
		const struct osc_sum_row *a = &s->rows[i - 1], *b = &s->rows[i];
		const char *key = osc_summary_str(s, b->key);

		if (a->level == b->level && a->run == b->run && a->key == b->key)
			return osc_error_set(r->err, OSC_NOT_TRACE, r->name, OSC_NO_OFFSET,
					     column_names[OSC_SUMCOL_NAME],
					     "two %s rows of run %u named \"%.*s%s\"",
					     osc_level_name(b->level), b->run,
					     shown(key, strlen(key)), key,
					     strlen(key) > SHOW_MAX ? "..." : "");
	}
	return OSC_OK;
}

static enum osc_status parse(struct reader *r)
{
	const char *next;
	enum osc_status st;

	if (r->data == r->end)
		return osc_error_set(r->err, OSC_EMPTY, r->name, 0, NULL, "empty file");
	if (!osc_summary_sniff(r->data, (size_t)(r->end - r->data)))
		return osc_error_set(r->err, OSC_NOT_TRACE, r->name, 0, NULL,
				     "not a summary file (no header " HEADER_START "...)");
	r->line = r->data;
	if ((st = check_header(r, &next)) != OSC_OK)
		return st;
	if (next == r->end)
		return osc_error_set(r->err, OSC_EMPTY, r->name, next - r->data, NULL,
				     "a header and no record");
	for (r->line = next; r->line < r->end; r->line = next)
		if ((st = split(r, &next)) != OSC_OK || (st = read_record(r)) != OSC_OK)
			return st;
	if ((st = place_runs(r)) != OSC_OK)
		return st;
	osc_summary_sort(r->s);
	return check_rows(r);
}

/* The whole of in, parsed into s. */
static enum osc_status read_input(struct osc_input *in, const char *name, struct osc_summary *s,
				  struct osc_error *err)
{
	struct reader r = { .name = name, .s = s, .err = err, .max_ref_at = -1 };
	enum osc_status st = OSC_OK;

	in->max_len = osc_load_default_max_input();
	while (st == OSC_OK && !in->eof)
		st = osc_input_more(in, 0, name, err);
	if (st == OSC_OK && (in->z_bad || in->z_check_failed))
		st = osc_error_set(err, OSC_GZIP, name, (int64_t)in->len, NULL, "%s", in->z_msg);
	if (st == OSC_OK) {
		r.data = in->data;
		r.end = in->data + in->len;
		st = parse(&r);
	}
	free(r.scratch);
	free(r.run_lines);
	if (st != OSC_OK) {
		osc_summary_release(s);
		return st;
	}
	s->source = OSC_SUM_FROM_FILE;
	s->path = osc_xstrdup(name);
	return OSC_OK;
}

enum osc_status osc_summary_read(const char *path, struct osc_summary *s, struct osc_error *err)
{
	struct osc_input in;
	enum osc_status st = osc_input_open(&in, path, NULL, err);

	if (st == OSC_OK)
		st = read_input(&in, path, s, err);
	else
		osc_summary_release(s);
	osc_input_close(&in);
	return st;
}

enum osc_status osc_summary_read_buffer(const char *name, const void *data, size_t len,
					struct osc_summary *s, struct osc_error *err)
{
	struct osc_input in;
	enum osc_status st;

	osc_input_open_buffer(&in, data, len);
	st = read_input(&in, name, s, err);
	osc_input_close(&in);
	return st;
}
