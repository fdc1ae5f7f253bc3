/*
 * cmd_info.c - `opscope info TRACE`: what is in a trace, before any analysis.
 *
 * Format, sizes, events by kind, category and phase, the time span,
 * processes and threads, GPU names, kernel streams, the device events' links
 * to their ops (correlate.h) and the device time no op launched, runs and
 * warnings.
 * Host names, user names and the other top-level meta fields are never
 * printed: of the meta only deviceProperties[].name (GPU names) is shown.
 *
 * --format json writes the same facts as one object for programs (the man
 * page's JSON SCHEMA): numbers as numbers, and every category, thread and
 * run, where the text lists the first ones. Each section below either prints
 * its lines (j NULL) or adds its members to j.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/model/rank.h"
#include "opscope/model/runs.h"
#include "opscope/export/export.h"
#include "cli.h"

#define SCHEMA "opscope/1"

#define TOP_CATEGORIES 15
#define MAX_RUNS_LISTED 20
#define MAX_THREADS_LISTED 10
#define MAX_STREAMS_LISTED 20
#define NAME_WIDTH 60 /* longer names lose their middle */

/* Names from the trace go to a terminal: control characters become '?'. */
struct shown {
	bool utf8;
	char buf[4][NAME_WIDTH * 4 + 4];
};

static const char *show(struct shown *sh, int slot, const char *s)
{
	osc_text_fit(s, strlen(s), NAME_WIDTH, sh->utf8, sh->buf[slot], sizeof(sh->buf[slot]));
	return sh->buf[slot];
}

/* A pid or tid: "(none)" when the file gave none. */
static const char *show_id(struct shown *sh, int slot, const char *s)
{
	return *s ? show(sh, slot, s) : "(none)";
}

static void print_help(void)
{
	puts("usage: opscope info [OPTIONS] [TRACE]\n"
	     "       opscope info [OPTIONS] DIR | TRACE TRACE...\n"
	     "\n"
	     "Describe TRACE: format, file and uncompressed size, events by kind, category\n"
	     "and phase, time span, processes and threads, GPUs, kernel streams, how the\n"
	     "device events were linked to their ops and the device time no op launched\n"
	     "(by reason), the runs found and the load warnings. TRACE is a file (plain,\n"
	     "gzip or zstd) or - for standard input; without it the bundled sample trace\n"
	     "is used.\n"
	     "\n"
	     "A job's ranks (a directory, several traces, or summary files) give one row\n"
	     "per rank: its rank and where that came from, format, events, runs, collective\n"
	     "calls and input; the header says which ranks of the world size are missing.\n"
	     "\n"
	     "options:");
	osc_cli_print_options(stdout, osc_cli_view_options, OSC_MODE_INFO);
	puts("\n"
	     "--format json writes one object (schema \"" SCHEMA "\", see 'man opscope'):\n"
	     "every category, thread and run, numbers as numbers.\n"
	     "Exit status: 0 on success, 2 on any error.");
}

/* ---- JSON members ---- */

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *u64(uint64_t n)
{
	return json_object_new_uint64(n);
}

/* A decimal number written as formatted ("12.345"), exact in the output. */
static struct json_object *decimal(const char *text)
{
	return json_object_new_double_s(strtod(text, NULL), text);
}

static struct json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

/* ns as milliseconds with 3 decimals, rounded half away from zero. */
static const char *ms(int64_t ns, char *buf, size_t size)
{
	int64_t us = ns / 1000, rest = ns % 1000;

	if (rest >= 500)
		us++;
	else if (rest <= -500)
		us--;
	osc_format_us_int(us, buf, size);
	return buf;
}

static void print_sizes(const struct osc_trace *t, struct json_object *j)
{
	if (j) {
		add(j, "file_bytes", u64(t->compression ? t->file_bytes : t->input_bytes));
		add(j, "input_bytes", u64(t->input_bytes));
		add(j, "compression", str_or_null(t->compression));
		return;
	}
	if (t->compression)
		printf("size:         %llu bytes %s, %llu bytes uncompressed\n",
		       (unsigned long long)t->file_bytes, t->compression,
		       (unsigned long long)t->input_bytes);
	else
		printf("size:         %llu bytes (not compressed)\n",
		       (unsigned long long)t->input_bytes);
}

static void print_kinds(const struct osc_trace *t, struct json_object *j)
{
	uint64_t by_kind[OSC_KIND_COUNT] = { 0 };
	const char *sep = "";

	for (size_t i = 0; i < t->nr_events; i++)
		by_kind[t->events[i].kind < OSC_KIND_COUNT ? t->events[i].kind : 0]++;
	by_kind[OSC_KIND_FLOW] += t->nr_flows;
	if (j) {
		struct json_object *kinds = json_object_new_object();

		add(j, "total", u64(osc_trace_nr_written(t)));
		add(j, "metadata", u64(t->nr_metadata));
		for (int k = 0; k < OSC_KIND_COUNT; k++)
			if (by_kind[k])
				add(kinds, osc_kind_name((enum osc_kind)k), u64(by_kind[k]));
		add(j, "by_kind", kinds);
		return;
	}
	printf("events:       %zu (and %llu metadata events)\n  by kind:    ", osc_trace_nr_written(t),
	       (unsigned long long)t->nr_metadata);
	for (int k = 0; k < OSC_KIND_COUNT; k++) {
		if (!by_kind[k])
			continue;
		printf("%s%s %llu", sep, osc_kind_name((enum osc_kind)k),
		       (unsigned long long)by_kind[k]);
		sep = ", ";
	}
	printf("%s\n", *sep ? "" : "none");
}

struct count {
	osc_str id;
	uint64_t n;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void print_categories(const struct osc_trace *t, struct shown *sh, struct json_object *j)
{
	uint64_t *per_str = osc_xcalloc(t->strs.count ? t->strs.count : 1, sizeof(*per_str));
	struct count *cats = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t i = 0; i < t->nr_events; i++)
		per_str[t->events[i].cat]++;
	for (size_t i = 0; i < t->nr_flows; i++)
		per_str[osc_trace_flow_name(t, &t->flows[i])->cat]++;
	for (size_t s = 0; s < t->strs.count; s++) {
		if (!per_str[s])
			continue;
		OSC_GROW(cats, nr + 1, alloc);
		cats[nr++] = (struct count){ (osc_str)s, per_str[s] };
	}
	if (nr)
		qsort(cats, nr, sizeof(*cats), by_count_desc);
	if (j) {
		struct json_object *list = json_object_new_array();

		for (size_t i = 0; i < nr; i++) {
			struct json_object *c = json_object_new_object();

			add(c, "category", str_or_null(osc_trace_str(t, cats[i].id)));
			add(c, "events", u64(cats[i].n));
			json_object_array_add(list, c);
		}
		add(j, "by_category", list);
	} else {
		printf("  by category (%zu%s):", nr, nr > TOP_CATEGORIES ? ", top 15" : "");
		for (size_t i = 0; i < nr && i < TOP_CATEGORIES; i++)
			printf("%s %s %llu", i ? "," : "",
			       cats[i].id ? show(sh, 0, osc_trace_str(t, cats[i].id)) : "(none)",
			       (unsigned long long)cats[i].n);
		printf("%s\n", nr ? "" : " none");
	}
	free(cats);
	free(per_str);
}

static void print_phases(const struct osc_trace *t, struct json_object *j)
{
	const char *sep = "";

	if (j) {
		for (int c = 0; c < 256; c++) {
			char key[8];

			if (!t->ph_counts[c])
				continue;
			snprintf(key, sizeof(key), c > 0x20 && c < 0x7f ? "%c" : "0x%02x", c);
			add(j, key, u64(t->ph_counts[c]));
		}
		return;
	}
	printf("phases:       ");
	for (int c = 0; c < 256; c++) {
		if (!t->ph_counts[c])
			continue;
		if (c > 0x20 && c < 0x7f)
			printf("%s%c %llu", sep, c, (unsigned long long)t->ph_counts[c]);
		else
			printf("%s0x%02x %llu", sep, c, (unsigned long long)t->ph_counts[c]);
		sep = ", ";
	}
	printf("%s\n", *sep ? "" : "none");
}

static void print_span(const struct osc_trace *t, struct json_object *j)
{
	char a[48], b[48], d[48];
	int64_t first, last;

	if (!osc_trace_nr_written(t)) {
		if (j)
			add(j, "time_span", NULL);
		else
			printf("time span:    none (no events)\n");
		return;
	}
	first = last = osc_trace_origin(t); /* events and flows are sorted by ts */
	for (size_t i = 0; i < t->nr_events; i++)
		if (osc_event_end(&t->events[i]) > last)
			last = osc_event_end(&t->events[i]);
	if (t->nr_flows && t->flows[t->nr_flows - 1].ts > last)
		last = t->flows[t->nr_flows - 1].ts;
	osc_format_us_int(first, a, sizeof(a));
	osc_format_us_int(last, b, sizeof(b));
	if (j) {
		struct json_object *span = json_object_new_object();

		add(span, "first_us", decimal(a));
		add(span, "last_us", decimal(b));
		add(span, "dur_ms", decimal(ms(last - first, d, sizeof(d))));
		add(j, "time_span", span);
		return;
	}
	printf("time span:    %s .. %s us (%s ms)\n", a, b, ms(last - first, d, sizeof(d)));
}

/* Threads grouped under their process, in table order. */
static void print_threads(const struct osc_trace *t, struct shown *sh, struct json_object *j)
{
	struct json_object *procs = j ? json_object_new_array() : NULL, *threads = NULL;
	size_t nr_procs = 0;
	uint8_t *done = osc_xcalloc(t->nr_threads ? t->nr_threads : 1, 1);

	for (size_t i = 0; i < t->nr_threads; i++)
		if (!done[i]) {
			nr_procs++;
			for (size_t j = i; j < t->nr_threads; j++)
				if (t->threads[j].pid == t->threads[i].pid)
					done[j] = 1;
		}
	if (!j)
		printf("processes:    %zu\nthreads:      %zu\n", nr_procs, t->nr_threads);
	memset(done, 0, t->nr_threads);
	for (size_t i = 0; i < t->nr_threads; i++) {
		const struct osc_thread *p = &t->threads[i];
		size_t listed = 0, nr = 0;
		osc_str name = OSC_STR_EMPTY;

		if (done[i])
			continue;
		for (size_t j = i; j < t->nr_threads; j++)
			if (t->threads[j].pid == p->pid) {
				nr++;
				if (!name)
					name = t->threads[j].process_name;
			}
		if (j) {
			struct json_object *proc = json_object_new_object();

			add(proc, "pid", str_or_null(osc_trace_str(t, p->pid)));
			add(proc, "name", str_or_null(osc_trace_str(t, name)));
			threads = json_object_new_array();
			add(proc, "threads", threads);
			json_object_array_add(procs, proc);
		} else {
			printf("  pid %s%s%s%s: %zu thread%s\n",
			       show_id(sh, 0, osc_trace_str(t, p->pid)), name ? " \"" : "",
			       show(sh, 1, osc_trace_str(t, name)), name ? "\"" : "", nr,
			       nr == 1 ? "" : "s");
		}
		for (size_t k = i; k < t->nr_threads; k++) {
			const struct osc_thread *th = &t->threads[k];

			if (th->pid != p->pid)
				continue;
			done[k] = 1;
			if (threads) {
				struct json_object *o = json_object_new_object();

				add(o, "tid", str_or_null(osc_trace_str(t, th->tid)));
				add(o, "name", str_or_null(osc_trace_str(t, th->thread_name)));
				add(o, "events", u64(th->nr_events));
				json_object_array_add(threads, o);
				continue;
			}
			if (listed++ < MAX_THREADS_LISTED)
				printf("    tid %s%s%s%s: %llu events\n",
				       show_id(sh, 0, osc_trace_str(t, th->tid)),
				       th->thread_name ? " \"" : "",
				       show(sh, 1, osc_trace_str(t, th->thread_name)),
				       th->thread_name ? "\"" : "",
				       (unsigned long long)th->nr_events);
		}
		if (listed > MAX_THREADS_LISTED)
			printf("    ... and %zu more threads\n", listed - MAX_THREADS_LISTED);
	}
	if (j)
		add(j, "processes", procs);
	free(done);
}

/* A string field of the meta, "" when absent. */
static const char *meta_text(struct json_object *meta, const char *key)
{
	struct json_object *v;

	if (meta && json_object_object_get_ex(meta, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

/*
 * nvprof and nsys databases: the driver and the tool that wrote the file.
 * The loader keeps nothing else of the target (no environment, no host).
 */
static void print_versions(struct json_object *meta, struct shown *sh, struct json_object *j)
{
	const char *driver = meta_text(meta, "driverVersion");
	const char *cuda = meta_text(meta, "cudaDriverVersion");
	const char *schema = meta_text(meta, "schemaVersion");

	if (j) {
		struct json_object *tool = json_object_new_object();

		add(tool, "driver", str_or_null(driver));
		add(tool, "cuda_driver", str_or_null(cuda));
		add(tool, "name", str_or_null(meta_text(meta, "tool")));
		add(tool, "version", str_or_null(meta_text(meta, "toolVersion")));
		add(tool, "schema", str_or_null(schema));
		add(j, "tool", tool);
		return;
	}

	printf("driver:       %s", *driver ? show(sh, 0, driver) : "unknown");
	printf("%s%s%s\n", *cuda ? " (CUDA " : "", show(sh, 0, cuda), *cuda ? ")" : "");
	printf("tool:         %s", show(sh, 0, meta_text(meta, "tool")));
	printf("%s%s", *meta_text(meta, "toolVersion") ? " " : "",
	       show(sh, 0, meta_text(meta, "toolVersion")));
	printf("%s%s%s\n", *schema ? " (schema " : "", show(sh, 0, schema), *schema ? ")" : "");
}

/* The rank in a distributed job (rank.h): "rank: 3 of 8 (nccl, distributedInfo)"; else no line. */
static void print_rank(const struct osc_trace *t, const char *name, struct json_object *j)
{
	struct osc_rank r;

	osc_trace_rank(t, name, &r);
	if (j) {
		struct json_object *o = json_object_new_object();

		add(o, "rank", r.rank >= 0 ? json_object_new_int64(r.rank) : NULL);
		add(o, "world_size", r.world_size >= 0 ? json_object_new_int64(r.world_size) : NULL);
		add(o, "backend", str_or_null(r.backend));
		add(o, "source", json_object_new_string(osc_rank_source_name(r.source)));
		add(j, "rank", o);
		return;
	}
	if (r.source == OSC_RANK_NONE) /* not part of a job, as far as the trace says */
		return;
	printf("rank:         %lld", (long long)r.rank);
	if (r.world_size >= 0)
		printf(" of %lld", (long long)r.world_size);
	printf(" (%s%s%s)\n", r.backend[0] ? r.backend : "", r.backend[0] ? ", " : "",
	       osc_rank_source_name(r.source));
}

/* GPU names from the top-level deviceProperties; nothing else of the meta. */
static void print_devices(const struct osc_trace *t, struct shown *sh, struct json_object *j)
{
	struct json_object *gpus = j ? json_object_new_array() : NULL;
	struct json_object *meta = t->meta_json && *t->meta_json
		? json_tokener_parse(t->meta_json) : NULL;
	struct json_object *props, *name;
	size_t nr = 0;

	if (meta && json_object_object_get_ex(meta, "deviceProperties", &props) &&
	    json_object_is_type(props, json_type_array))
		nr = json_object_array_length(props);
	if (!j)
		printf("gpus:         %zu\n", nr);
	for (size_t i = 0; i < nr; i++) {
		struct json_object *dev = json_object_array_get_idx(props, i);
		const char *gpu = json_object_object_get_ex(dev, "name", &name) &&
			json_object_is_type(name, json_type_string) ?
			json_object_get_string(name) : NULL;

		if (j) {
			struct json_object *o = json_object_new_object();

			add(o, "index", u64(i));
			add(o, "name", str_or_null(gpu));
			json_object_array_add(gpus, o);
		} else if (gpu) {
			printf("  %zu: %s\n", i, show(sh, 0, gpu));
		}
	}
	if (j)
		add(j, "gpus", gpus);
	if (t->format == OSC_FORMAT_NSYS || t->format == OSC_FORMAT_NVPROF)
		print_versions(meta, sh, j);
	json_object_put(meta);
}

static int int_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static void print_streams(const struct osc_trace *t, struct json_object *j)
{
	int32_t *s = NULL;
	size_t nr = 0, alloc = 0, distinct = 0;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (e->kind == OSC_KIND_KERNEL && e->kernel != OSC_NONE &&
		    e->kernel < t->nr_kernels && t->kernels[e->kernel].stream >= 0) {
			OSC_GROW(s, nr + 1, alloc);
			s[nr++] = t->kernels[e->kernel].stream;
		}
	}
	if (nr) /* qsort(NULL, 0) is undefined */
		qsort(s, nr, sizeof(*s), int_cmp);
	for (size_t i = 0; i < nr; i++)
		if (!i || s[i] != s[i - 1])
			s[distinct++] = s[i];
	if (j) {
		struct json_object *list = json_object_new_array();

		for (size_t i = 0; i < distinct; i++)
			json_object_array_add(list, json_object_new_int(s[i]));
		add(j, "streams", list);
		free(s);
		return;
	}
	printf("streams:      %zu", distinct);
	for (size_t i = 0; i < distinct && i < MAX_STREAMS_LISTED; i++)
		printf("%s%d", i ? ", " : " (kernel streams: ", s[i]);
	printf("%s\n", distinct > MAX_STREAMS_LISTED ? ", ...)" : distinct ? ")" : "");
	free(s);
}

/* The device events' time, in all and per reason without an op (their counts:
   the correlation's by_unattributed). */
struct device_sums {
	int64_t time, time_of[OSC_UNATTRIBUTED_COUNT];
	uint64_t by_host[OSC_LINK_COUNT]; /* launched ones, by their launch's link to an op */
};

/* words as a JSON key: "time window" -> "time_window". */
static const char *json_key(const char *words, char *buf, size_t size)
{
	size_t i = 0;

	for (; words[i] && i + 1 < size; i++)
		buf[i] = words[i] == ' ' ? '_' : words[i];
	buf[i] = '\0';
	return buf;
}

/* How device events were linked (correlate.h), "no link" for none. */
static const char *link_words(int m)
{
	return m == OSC_LINK_NONE ? "no link" : osc_link_name((enum osc_link)m);
}

static void sum_device(const struct osc_trace *t, const struct osc_correlation *c,
		       struct device_sums *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nr_devs; i++) {
		const struct osc_dev_link *d = &c->devs[i];
		int64_t dur = t->events[d->event].dur;

		s->time = osc_sat_add(s->time, dur);
		s->time_of[d->unattributed] = osc_sat_add(s->time_of[d->unattributed], dur);
		if (d->launch != OSC_NONE)
			s->by_host[d->host_method]++;
	}
}

/*
 * The device events (the kernels, memcpys and memsets a report counts): how
 * many, their summed durations (report's device_time: streams overlap, so
 * not wall time), how each was linked to its launch or op and each launch
 * to its op, and the time no op launched, by reason (unattributed.h).
 */
static void print_device(const struct osc_trace *t, struct json_object *j)
{
	const struct osc_correlation *c = osc_trace_correlation(t);
	struct device_sums s;
	char a[64], k[64];
	const char *sep = "";
	uint64_t none;

	sum_device(t, c, &s);
	none = c->nr_devs - c->by_unattributed[OSC_UNATTRIBUTED_NONE];
	if (j) {
		struct json_object *dev = json_object_new_object();
		struct json_object *links = json_object_new_object();
		struct json_object *launch = json_object_new_object();
		struct json_object *why = json_object_new_object();

		add(dev, "events", u64(c->nr_devs));
		add(dev, "time_ms", decimal(ms(s.time, a, sizeof(a))));
		for (int m = 0; m < OSC_LINK_COUNT; m++) {
			if (c->by_method[m])
				add(links, json_key(link_words(m), k, sizeof(k)),
				    u64(c->by_method[m]));
			if (m != OSC_LINK_NONE && s.by_host[m])
				add(launch, json_key(link_words(m), k, sizeof(k)),
				    u64(s.by_host[m]));
		}
		for (int u = OSC_UNATTRIBUTED_NONE + 1; u < OSC_UNATTRIBUTED_COUNT; u++) {
			struct json_object *r = json_object_new_object();

			if (!c->by_unattributed[u]) {
				json_object_put(r);
				continue;
			}
			add(r, "events", u64(c->by_unattributed[u]));
			add(r, "time_ms", decimal(ms(s.time_of[u], a, sizeof(a))));
			add(why, json_key(osc_unattributed_name((enum osc_unattributed)u), k,
					  sizeof(k)), r);
		}
		add(dev, "links", links);
		add(dev, "launch_links", launch);
		add(dev, "unattributed_events", u64(none));
		add(dev, "unattributed_ms",
		    decimal(ms(s.time - s.time_of[OSC_UNATTRIBUTED_NONE], a, sizeof(a))));
		add(dev, "unattributed_why", why);
		add(j, "device", dev);
		return;
	}
	if (!c->nr_devs)
		return;
	printf("device:       %zu events, %s ms (durations summed)\n", c->nr_devs,
	       ms(s.time, a, sizeof(a)));
	printf("  linked by:  ");
	for (int m = 0; m < OSC_LINK_COUNT; m++) {
		if (!c->by_method[m])
			continue;
		printf("%s%s %llu", sep, link_words(m), (unsigned long long)c->by_method[m]);
		sep = ", ";
	}
	sep = "; launches to ops by ";
	for (int m = OSC_LINK_NONE + 1; m < OSC_LINK_COUNT; m++) {
		if (!s.by_host[m])
			continue;
		printf("%s%s %llu", sep, link_words(m), (unsigned long long)s.by_host[m]);
		sep = ", ";
	}
	printf("\n  no op:      %llu events, %s ms", (unsigned long long)none,
	       ms(s.time - s.time_of[OSC_UNATTRIBUTED_NONE], a, sizeof(a)));
	for (int u = OSC_UNATTRIBUTED_NONE + 1; u < OSC_UNATTRIBUTED_COUNT; u++)
		if (c->by_unattributed[u])
			printf("; %s %llu, %s ms", osc_unattributed_name((enum osc_unattributed)u),
			       (unsigned long long)c->by_unattributed[u],
			       ms(s.time_of[u], a, sizeof(a)));
	putchar('\n');
}

/* The runs as JSON: source, the default selection (text and indexes), each run. */
static void json_runs(const struct osc_trace *t, const struct osc_runs *r, struct json_object *j)
{
	struct json_object *runs = json_object_new_object(), *list = json_object_new_array();
	struct osc_runsel sel;
	struct osc_error err;
	int64_t origin = osc_trace_origin(t);
	char a[48], b[48];

	add(runs, "source", json_object_new_string(osc_run_source_name(r->source)));
	add(runs, "count", u64(r->nr));
	memset(&sel, 0, sizeof(sel));
	if (osc_runsel_parse(NULL, r->nr, r->warmup, &sel, &err) == OSC_OK) {
		char *d = osc_runsel_describe(&sel, r);

		add(runs, "default", json_object_new_string(d));
		free(d);
	}
	for (size_t i = 0; i < r->nr; i++) {
		const struct osc_run *run = &r->runs[i];
		struct json_object *o = json_object_new_object();

		add(o, "index", u64(i));
		add(o, "name", str_or_null(osc_trace_str(t, run->name)));
		add(o, "start_ms", decimal(ms(run->ts - origin, a, sizeof(a))));
		add(o, "dur_ms", decimal(ms(run->dur, b, sizeof(b))));
		add(o, "events", u64(run->nr_events));
		add(o, "default", json_object_new_boolean(i < sel.nr_runs && sel.on[i]));
		json_object_array_add(list, o);
	}
	osc_runsel_release(&sel);
	add(runs, "list", list);
	add(runs, "outside_events", u64(r->outside));
	add(j, "runs", runs);
}

static void print_runs(const struct osc_trace *t, const struct osc_runs *r, struct shown *sh)
{
	struct osc_runsel sel;
	struct osc_error err;
	int64_t origin = osc_trace_origin(t);
	char a[48], b[48];

	printf("runs:         %zu (%s)\n", r->nr, osc_run_source_name(r->source));
	if (osc_runsel_parse(NULL, r->nr, r->warmup, &sel, &err) == OSC_OK) {
		char *d = osc_runsel_describe(&sel, r);

		printf("  default:    %s\n", d);
		free(d);
	}
	osc_runsel_release(&sel);
	if (r->nr)
		printf("  %5s  %-24s %12s %12s %10s\n", "index", "name", "start_ms", "dur_ms",
		       "events");
	for (size_t i = 0; i < r->nr && i < MAX_RUNS_LISTED; i++) {
		const struct osc_run *run = &r->runs[i];
		const char *name = show(sh, 0, osc_trace_str(t, run->name));

		printf("  %5zu  %-24s %12s %12s %10llu\n", i, *name ? name : "(whole trace)",
		       ms(run->ts - origin, a, sizeof(a)), ms(run->dur, b, sizeof(b)),
		       (unsigned long long)run->nr_events);
	}
	if (r->nr > MAX_RUNS_LISTED)
		printf("  ... and %zu more runs\n", r->nr - MAX_RUNS_LISTED);
	printf("outside runs: %llu events\n", (unsigned long long)r->outside);
}

static const char *const warn_keys[] = {
#define WARN_KEY(name, text) #name,
	OSC_WARN_LIST(WARN_KEY)
#undef WARN_KEY
};

static void json_warnings(const struct osc_trace *t, struct json_object *j)
{
	struct json_object *list = json_object_new_array();

	for (int w = 0; w < OSC_WARN_COUNT; w++) {
		struct json_object *o;
		char key[64];
		size_t i;

		if (!t->warnings[w].count)
			continue;
		for (i = 0; warn_keys[w][i] && i < sizeof(key) - 1; i++)
			key[i] = (char)(warn_keys[w][i] | 0x20); /* TRUNCATED -> truncated */
		key[i] = '\0';
		o = json_object_new_object();
		add(o, "kind", json_object_new_string(key));
		add(o, "count", u64(t->warnings[w].count));
		add(o, "first_offset", t->warnings[w].first_offset >= 0 ?
			json_object_new_int64(t->warnings[w].first_offset) : NULL);
		add(o, "text", json_object_new_string(osc_warn_text((enum osc_warn)w)));
		json_object_array_add(list, o);
	}
	add(j, "warnings", list);
}

static void print_warnings(const struct osc_trace *t)
{
	bool any = false;

	printf("warnings:");
	for (int w = 0; w < OSC_WARN_COUNT; w++) {
		char line[256];

		if (!t->warnings[w].count)
			continue;
		printf("\n  %s", osc_warning_format(&t->warnings[w], (enum osc_warn)w, line,
						    sizeof(line)));
		any = true;
	}
	printf("%s\n", any ? "" : "     none");
}

/* The whole description as one JSON object (see the man page's JSON SCHEMA). */
static void json_info(const struct osc_trace *t, const char *name, const struct osc_runs *runs)
{
	struct json_object *doc = json_object_new_object(), *size = json_object_new_object();
	struct json_object *events = json_object_new_object(), *phases = json_object_new_object();
	const char *text;

	add(doc, "schema", json_object_new_string(SCHEMA));
	add(doc, "trace", json_object_new_string(name));
	add(doc, "format", json_object_new_string(osc_format_name(t->format)));
	print_sizes(t, size);
	add(doc, "size", size);
	print_kinds(t, events);
	print_categories(t, NULL, events);
	print_phases(t, phases);
	add(events, "by_phase", phases);
	add(doc, "events", events);
	print_span(t, doc);
	print_threads(t, NULL, doc);
	add(doc, "threads", u64(t->nr_threads));
	print_devices(t, NULL, doc);
	print_rank(t, name, doc);
	print_streams(t, doc);
	print_device(t, doc);
	json_runs(t, runs, doc);
	json_warnings(t, doc);
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	osc_export_json_text(stdout, text, isatty(STDOUT_FILENO) ? OSC_EXPORT_TERMINAL : 0);
	putchar('\n');
	json_object_put(doc);
}

static enum osc_status print_info(const struct osc_trace *t, const char *name,
				  const struct osc_runs_opts *ro, bool json, struct osc_error *err)
{
	struct osc_runs runs;
	struct shown sh = { .utf8 = osc_locale_is_utf8() };

	/* a bad --run-range fails before anything is printed */
	if (osc_runs_detect_opts(t, ro, &runs, err) != OSC_OK)
		return err->code;
	if (json) {
		json_info(t, name, &runs);
		osc_runs_release(&runs);
		return OSC_OK;
	}
	char *shown = osc_xmalloc(strlen(name) * 3 + 4);

	/* The name whole, but with the characters a terminal must not get as '?'. */
	osc_text_fit(name, strlen(name), (size_t)-1, sh.utf8, shown, strlen(name) * 3 + 4);
	printf("trace:        %s\nformat:       %s\n", shown, osc_format_name(t->format));
	free(shown);
	print_sizes(t, NULL);
	print_kinds(t, NULL);
	print_categories(t, &sh, NULL);
	print_phases(t, NULL);
	print_span(t, NULL);
	print_threads(t, &sh, NULL);
	print_devices(t, &sh, NULL);
	print_rank(t, name, NULL);
	print_streams(t, NULL);
	print_device(t, NULL);
	print_runs(t, &runs, &sh);
	osc_runs_release(&runs);
	print_warnings(t);
	return OSC_OK;
}

int osc_cmd_info(int argc, char **argv)
{
	struct osc_cli_view v;
	struct osc_runs_opts ro = { 0 };
	struct osc_error err;
	struct osc_trace t;
	enum osc_status st;

	osc_error_clear(&err);
	if (osc_cli_view_parse(&v, argc, argv, OSC_MODE_INFO, &err) != OSC_OK) {
		osc_cli_view_release(&v);
		return osc_cli_fail(&err);
	}
	if (v.help) {
		osc_cli_view_release(&v);
		print_help();
		return OSC_EXIT_OK;
	}
	if (osc_cli_view_is_job(&v)) {
		int rc = osc_ranks_info_run(&v);

		osc_cli_view_release(&v);
		return rc;
	}
	if (v.ranks) {
		osc_error_set(&err, OSC_USAGE, "--ranks", OSC_NO_OFFSET, NULL,
			      "needs a job's ranks: a directory, several traces or summary files");
		osc_cli_view_release(&v);
		return osc_cli_fail(&err);
	}
	if (v.format != OSC_EXPORT_TABLE && v.format != OSC_EXPORT_JSON) {
		osc_error_set(&err, OSC_USAGE, "--format", OSC_NO_OFFSET, NULL,
			      "info writes text or json, not '%s'",
			      osc_export_format_name(v.format));
		osc_cli_view_release(&v);
		return osc_cli_fail(&err);
	}
	ro.range = v.run_range;
	ro.whole = v.whole_trace;
	osc_trace_init(&t);
	st = osc_cli_load(v.path, v.max_input, &t, &err);
	if (st == OSC_OK)
		st = print_info(&t, osc_cli_input_name(v.path), &ro, v.format == OSC_EXPORT_JSON,
				&err);
	osc_trace_release(&t);
	osc_cli_view_release(&v);
	if (st != OSC_OK)
		return osc_cli_fail(&err);
	if (fflush(stdout) || ferror(stdout)) {
		osc_error_set(&err, OSC_IO, "output", OSC_NO_OFFSET, NULL, "write failed");
		return osc_cli_fail(&err);
	}
	return OSC_EXIT_OK;
}
