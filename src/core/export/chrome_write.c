/*
 * chrome_write.c - chosen events as Chrome trace-event JSON (chrome_write.h).
 *
 * Output goes through a 64 KiB buffer, deflated (gzip wrapper) when asked.
 * Limits: strings are written as the model holds them (valid UTF-8), with
 * the JSON escapes for quote, backslash and control characters, and \uXXXX
 * for the characters a terminal must not get raw (osc_text_unsafe: DEL, C1
 * controls, bidi overrides); args are written as the model renders them.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "opscope/base/alloc.h"
#include "opscope/base/strtab.h"
#include "opscope/export/chrome_write.h"

struct sink {
	FILE *out;
	bool gzip, failed;
	z_stream z;
	unsigned char buf[1 << 16], zbuf[1 << 16];
	size_t len;
	uint64_t bytes;
};

static void raw_out(struct sink *k, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, k->out) != n)
		k->failed = true;
	k->bytes += n;
}

static void deflate_out(struct sink *k, int flush)
{
	k->z.next_in = k->buf;
	k->z.avail_in = (uInt)k->len;
	do {
		k->z.next_out = k->zbuf;
		k->z.avail_out = sizeof(k->zbuf);
		if (deflate(&k->z, flush) == Z_STREAM_ERROR) {
			k->failed = true;
			return;
		}
		raw_out(k, k->zbuf, sizeof(k->zbuf) - k->z.avail_out);
	} while (k->z.avail_out == 0);
}

static void flush_buf(struct sink *k, bool last)
{
	if (k->gzip)
		deflate_out(k, last ? Z_FINISH : Z_NO_FLUSH);
	else
		raw_out(k, k->buf, k->len);
	k->len = 0;
}

static void put(struct sink *k, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(k->buf) - k->len, m = n < room ? n : room;

		memcpy(k->buf + k->len, s, m);
		k->len += m;
		s += m;
		n -= m;
		if (k->len == sizeof(k->buf))
			flush_buf(k, false);
	}
}

static void puts_(struct sink *k, const char *s)
{
	put(k, s, strlen(s));
}

static void put_string(struct sink *k, const char *s)
{
	const char *run = s;
	char esc[8];

	put(k, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x80) { /* raw, unless a terminal must not get it: the same string */
			size_t n;
			int32_t cp = osc_utf8_decode(s, &n);

			if (cp >= 0 && cp <= 0xffff && osc_text_unsafe((uint32_t)cp)) {
				put(k, run, (size_t)(s - run));
				snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
				puts_(k, esc);
				run = s + n;
			}
			s += n - 1;
			continue;
		}
		if (ch != '"' && ch != '\\' && ch >= 0x20 && ch != 0x7f)
			continue;
		put(k, run, (size_t)(s - run));
		run = s + 1;
		switch (ch) {
		case '"':
			puts_(k, "\\\"");
			break;
		case '\\':
			puts_(k, "\\\\");
			break;
		case '\n':
			puts_(k, "\\n");
			break;
		case '\r':
			puts_(k, "\\r");
			break;
		case '\t':
			puts_(k, "\\t");
			break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			puts_(k, esc);
		}
	}
	put(k, run, (size_t)(s - run));
	put(k, "\"", 1);
}

/* A pid or tid: a number when it reads as one (as the file most likely had it), else a string. */
static void put_id(struct sink *k, const char *s)
{
	const char *p = s + (*s == '-');
	size_t n = strlen(p);
	bool number = n && n < 19 && (p[0] != '0' || n == 1) && strspn(p, "0123456789") == n;

	if (number)
		puts_(k, s);
	else
		put_string(k, s);
}

/* ns as µs with up to 3 decimals, exact. */
static void put_us(struct sink *k, int64_t ns)
{
	char b[48];
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	int len = snprintf(b, sizeof(b), "%s%llu", ns < 0 ? "-" : "",
			   (unsigned long long)(u / 1000));

	if (u % 1000) {
		len += snprintf(b + len, sizeof(b) - (size_t)len, ".%03llu",
				(unsigned long long)(u % 1000));
		while (b[len - 1] == '0')
			b[--len] = 0;
	}
	put(k, b, (size_t)len);
}

static void put_i64(struct sink *k, int64_t v)
{
	char b[32];

	put(k, b, (size_t)snprintf(b, sizeof(b), "%lld", (long long)v));
}

static void sep(struct sink *k, uint64_t *nr)
{
	puts_(k, (*nr)++ ? ",\n" : "\n");
}

static void metadata(struct sink *k, const struct osc_trace *t, const uint8_t *keep,
		     uint64_t *nr, struct osc_chrome_stats *st)
{
	uint8_t *used = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, 1);
	uint8_t *pid_done = osc_xcalloc(t->strs.count ? t->strs.count : 1, 1);

	for (size_t i = 0; i < t->nr_events; i++)
		if (keep[i])
			used[t->events[i].thread] = 1;
	for (size_t i = 0; i < t->nr_flows; i++)
		if (keep[t->nr_events + i])
			used[t->flows[i].thread] = 1;
	for (size_t th = 0; th < t->nr_threads; th++) {
		const struct osc_thread *x = &t->threads[th];
		const char *pid = osc_trace_str(t, x->pid), *tid = osc_trace_str(t, x->tid);

		if (!used[th])
			continue;
		if (!pid_done[x->pid]) {
			pid_done[x->pid] = 1;
			if (*osc_trace_str(t, x->process_name)) {
				sep(k, nr);
				puts_(k, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
				put_id(k, pid);
				puts_(k, ",\"args\":{\"name\":");
				put_string(k, osc_trace_str(t, x->process_name));
				puts_(k, "}}");
				st->metadata++;
			}
			if (x->process_sort) {
				sep(k, nr);
				puts_(k, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
				put_id(k, pid);
				puts_(k, ",\"args\":{\"sort_index\":");
				put_i64(k, x->process_sort);
				puts_(k, "}}");
				st->metadata++;
			}
		}
		if (*osc_trace_str(t, x->thread_name)) {
			sep(k, nr);
			puts_(k, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
			put_id(k, pid);
			puts_(k, ",\"tid\":");
			put_id(k, tid);
			puts_(k, ",\"args\":{\"name\":");
			put_string(k, osc_trace_str(t, x->thread_name));
			puts_(k, "}}");
			st->metadata++;
		}
		if (x->thread_sort) {
			sep(k, nr);
			puts_(k, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
			put_id(k, pid);
			puts_(k, ",\"tid\":");
			put_id(k, tid);
			puts_(k, ",\"args\":{\"sort_index\":");
			put_i64(k, x->thread_sort);
			puts_(k, "}}");
			st->metadata++;
		}
	}
	free(used);
	free(pid_done);
}

static const char *phase_text(uint8_t ph)
{
	switch (ph) {
	case OSC_PH_COMPLETE:
		return "X";
	case OSC_PH_INSTANT:
		return "i";
	case OSC_PH_FLOW_START:
		return "s";
	case OSC_PH_FLOW_STEP:
		return "t";
	case OSC_PH_FLOW_END:
		return "f";
	case OSC_PH_COUNTER:
		return "C";
	default:
		return NULL;
	}
}

/* What is written of an event or a flow. */
struct record {
	uint8_t ph;
	uint16_t flags;
	osc_str cat, name;
	uint32_t thread;
	int64_t ts, dur;
	osc_id id;        /* a flow's id, else OSC_ID_NONE */
	const char *args; /* "" for none */
};

static struct record event_record(const struct osc_trace *t, uint32_t i)
{
	const struct osc_event *e = &t->events[i];

	return (struct record){ .ph = e->ph, .flags = e->flags, .cat = e->cat, .name = e->name,
				.thread = e->thread, .ts = e->ts, .dur = e->dur,
				.id = OSC_ID_NONE, .args = osc_trace_args(t, i) };
}

static struct record flow_record(const struct osc_trace *t, uint32_t i)
{
	const struct osc_flow *f = &t->flows[i];
	const struct osc_flow_name *n = osc_trace_flow_name(t, f);

	return (struct record){ .ph = osc_flow_ph(f), .cat = n->cat, .name = n->name,
				.thread = f->thread, .ts = f->ts, .id = f->id,
				.args = osc_trace_flow_args(t, i) };
}

static void record(struct sink *k, const struct osc_trace *t, const struct record *r,
		   uint64_t *nr)
{
	const struct osc_thread *x = &t->threads[r->thread];
	const char *ph = phase_text(r->ph);

	sep(k, nr);
	puts_(k, "{\"ph\":\"");
	puts_(k, ph);
	puts_(k, "\"");
	if (*osc_trace_str(t, r->cat)) {
		puts_(k, ",\"cat\":");
		put_string(k, osc_trace_str(t, r->cat));
	}
	puts_(k, ",\"name\":");
	put_string(k, osc_trace_str(t, r->name));
	puts_(k, ",\"pid\":");
	put_id(k, osc_trace_str(t, x->pid));
	puts_(k, ",\"tid\":");
	put_id(k, osc_trace_str(t, x->tid));
	puts_(k, ",\"ts\":");
	put_us(k, r->ts);
	if (r->ph == OSC_PH_COMPLETE && !(r->flags & OSC_EVF_NO_DUR)) {
		puts_(k, ",\"dur\":");
		put_us(k, r->dur);
	}
	if (r->id != OSC_ID_NONE) {
		puts_(k, ",\"id\":");
		put_i64(k, osc_trace_id_value(t, r->id));
	}
	if (r->ph == OSC_PH_FLOW_END)
		puts_(k, ",\"bp\":\"e\"");
	if (*r->args) {
		puts_(k, ",\"args\":");
		puts_(k, r->args);
	}
	puts_(k, "}");
}

enum osc_status osc_chrome_write(FILE *out, const struct osc_trace *t, const uint8_t *keep,
				 bool gzip, struct osc_chrome_stats *stats, struct osc_error *err)
{
	struct sink *k = osc_xcalloc(1, sizeof(*k));
	struct osc_chrome_stats st = { 0 };
	uint64_t nr = 0;
	const char *meta = t->meta_json ? t->meta_json : "";
	bool failed;

	k->out = out;
	k->gzip = gzip;
	/* windowBits 15 + 16: a gzip wrapper */
	if (gzip && deflateInit2(&k->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(k);
		return osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL,
				     "cannot start gzip compression");
	}
	puts_(k, "{\"traceEvents\":[");
	metadata(k, t, keep, &nr, &st);
	for (size_t e = 0, f = 0; e < t->nr_events || f < t->nr_flows;) {
		/* in model order: a flow takes its place among the events */
		bool flow = osc_trace_flow_next(t, e, f);
		struct record r;

		if (!keep[flow ? t->nr_events + f : e] ||
		    !phase_text(flow ? osc_flow_ph(&t->flows[f]) : t->events[e].ph)) {
			flow ? f++ : e++;
			continue;
		}
		r = flow ? flow_record(t, (uint32_t)f++) : event_record(t, (uint32_t)e++);
		record(k, t, &r, &nr);
		st.events++;
	}
	puts_(k, "\n]");
	/* the other top-level keys: meta_json is an object; splice its members in */
	while (*meta == ' ' || *meta == '\n' || *meta == '\t' || *meta == '\r')
		meta++;
	if (*meta == '{') {
		size_t n = strlen(meta);

		while (n && meta[n - 1] != '}')
			n--;
		if (n > 2 && strspn(meta + 1, " \n\r\t") < n - 2) {
			puts_(k, ",\n");
			put(k, meta + 1, n - 2);
		}
	}
	puts_(k, "}\n");
	flush_buf(k, true);
	if (gzip)
		deflateEnd(&k->z);
	st.bytes = k->bytes;
	failed = k->failed || ferror(out);
	free(k);
	if (stats)
		*stats = st;
	return failed ? osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL, "cannot write")
		      : OSC_OK;
}
