/* collective_skew.c - the calls of a job's ranks matched, and their skew (collective_skew.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/collective.h"
#include "opscope/analysis/collective_skew.h"
#include "opscope/analysis/nccl_kernel.h"
#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"

/* One counted call of one rank. */
struct entry {
	const char *group;
	uint32_t seq, rank;
	const struct osc_sum_call *call;
};

static int entry_order(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = strcmp(a->group, b->group);

	if (c)
		return c;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Whether call c of rank r counts under run_on. */
static bool counts(const uint8_t *const *run_on, size_t r, const struct osc_sum_call *c,
		   size_t nr_runs)
{
	if (!run_on || !run_on[r])
		return true;
	return c->run != OSC_NONE && c->run < nr_runs && run_on[r][c->run];
}

/* to - from, saturated (a summary file may hold any times). */
static int64_t span(int64_t from, int64_t to)
{
	int64_t d;

	return __builtin_sub_overflow(to, from, &d) ? (to > from ? INT64_MAX : INT64_MIN) : d;
}

/* The figures of the call held by e[0 .. n) (one per rank) of ranks into out. */
static void figure(const struct osc_summary *const *ranks, const struct entry *e, size_t n,
		   struct osc_skew_call *out)
{
	int64_t first_ts = 0, last_ts = 0, min_dur = 0, max_dur = 0;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->group = e[0].group;
	out->seq = e[0].seq;
	out->bytes = e[0].call->bytes;
	out->group_size = e[0].call->group_size;
	out->ranks = (uint32_t)n;
	out->first = out->last = out->waited = OSC_NONE;
	out->skew = out->transfer = out->wait = -1;
	for (size_t i = 0; i < n; i++) {
		const struct osc_sum_call *c = e[i].call;
		const struct osc_summary *s = ranks[e[i].rank];

		out->algorithm = osc_nccl_merge(out->algorithm, osc_summary_str(s, c->algorithm));
		out->protocol = osc_nccl_merge(out->protocol, osc_summary_str(s, c->protocol));

		if (c->ts < 0)
			continue;
		if (!any || c->ts < first_ts)
			first_ts = c->ts, out->first = e[i].rank;
		if (!any || c->ts > last_ts)
			last_ts = c->ts, out->last = e[i].rank;
		if (!any || c->dur < min_dur)
			min_dur = c->dur;
		if (!any || c->dur > max_dur)
			max_dur = c->dur, out->waited = e[i].rank;
		any = true;
	}
	if (any) {
		out->skew = span(first_ts, last_ts);
		out->transfer = min_dur;
		out->wait = span(min_dur, max_dur);
	}
}

/* busbw of call c, GB/s (bytes per ns); NaN when unknown. */
static double call_busbw(const struct osc_skew_call *c)
{
	if (isnan(c->bytes) || c->transfer <= 0)
		return NAN;
	return c->bytes / (double)c->transfer * osc_busbw_factor(c->name, c->group_size);
}

static int sum_order(const void *pa, const void *pb)
{
	const struct osc_skew_sum *a = pa, *b = pb;
	int c = strcmp(a->group, b->group);

	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->algorithm, b->algorithm);
	return c ? c : strcmp(a->protocol, b->protocol);
}

/* Add up the calls per (group, name, algorithm, protocol) into s->sums. */
static void add_up(struct osc_skew *s)
{
	size_t alloc = 0, group_start = 0;
	uint64_t *nr_bw = NULL;

	for (size_t i = 0; i < s->nr; i++) {
		const struct osc_skew_call *c = &s->calls[i];
		struct osc_skew_sum *u;
		double bw = call_busbw(c);
		size_t k;

		if (i && strcmp(c->group, s->calls[i - 1].group))
			group_start = s->nr_sums;
		for (k = group_start; k < s->nr_sums; k++)
			if (!strcmp(s->sums[k].name, c->name) &&
			    !strcmp(s->sums[k].algorithm, c->algorithm) &&
			    !strcmp(s->sums[k].protocol, c->protocol))
				break;
		if (k == s->nr_sums) {
			size_t a = alloc;

			OSC_GROW(s->sums, s->nr_sums + 1, alloc);
			OSC_GROW(nr_bw, s->nr_sums + 1, a);
			s->sums[k] = (struct osc_skew_sum){ .group = c->group, .name = c->name,
							    .algorithm = c->algorithm,
							    .protocol = c->protocol };
			nr_bw[k] = 0;
			s->nr_sums++;
		}
		u = &s->sums[k];
		u->count++;
		u->incomplete += c->missing > 0;
		if (c->transfer >= 0) {
			u->skew = osc_sat_add(u->skew, c->skew);
			u->transfer = osc_sat_add(u->transfer, c->transfer);
			u->wait = osc_sat_add(u->wait, c->wait);
		}
		if (!isnan(bw)) {
			u->busbw += bw;
			nr_bw[k]++;
		}
	}
	for (size_t k = 0; k < s->nr_sums; k++)
		s->sums[k].busbw = nr_bw[k] ? s->sums[k].busbw / (double)nr_bw[k] : NAN;
	free(nr_bw);
	if (s->nr_sums > 1)
		qsort(s->sums, s->nr_sums, sizeof(*s->sums), sum_order);
}

void osc_collective_skew(const struct osc_summary *const *ranks, size_t nr,
			 const uint8_t *const *run_on, struct osc_skew *out)
{
	struct entry *e = NULL;
	size_t n = 0, alloc = 0, calls_alloc = 0;
	uint32_t *seen = osc_xcalloc(nr ? nr : 1, sizeof(*seen)), group_ranks = 0, stamp = 0;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < ranks[r]->nr_calls; i++) {
			const struct osc_sum_call *c = &ranks[r]->calls[i];

			if (!counts(run_on, r, c, ranks[r]->nr_runs))
				continue;
			OSC_GROW(e, n + 1, alloc);
			e[n++] = (struct entry){ osc_summary_str(ranks[r], c->group), c->seq,
						 (uint32_t)r, c };
		}
	if (n > 1)
		qsort(e, n, sizeof(*e), entry_order);
	for (size_t i = 0, j; i < n; i = j) {
		struct osc_skew_call *c;

		if (!i || strcmp(e[i].group, e[i - 1].group)) {
			/* a new group: the ranks that have any call of it */
			stamp++;
			group_ranks = 0;
			for (j = i; j < n && !strcmp(e[j].group, e[i].group); j++)
				if (seen[e[j].rank] != stamp) {
					seen[e[j].rank] = stamp;
					group_ranks++;
				}
		}
		for (j = i + 1; j < n && e[j].seq == e[i].seq; j++)
			if (strcmp(e[j].group, e[i].group))
				break;
		OSC_GROW(out->calls, out->nr + 1, calls_alloc);
		c = &out->calls[out->nr++];
		figure(ranks, &e[i], j - i, c);
		c->name = osc_summary_str(ranks[e[i].rank], e[i].call->name);
		c->missing = group_ranks > c->ranks ? group_ranks - c->ranks : 0;
	}
	free(seen);
	free(e);
	add_up(out);
}

void osc_skew_release(struct osc_skew *s)
{
	free(s->calls);
	free(s->sums);
	memset(s, 0, sizeof(*s));
}

/* ---- tables ---- */

enum { K_GROUP, K_SEQ, K_NAME, K_MB, K_ALGO, K_PROTO, K_RANKS, K_MISSING, K_FIRST, K_LAST,
       K_SKEW, K_TRANSFER, K_WAIT, K_WAITED, K_BUSBW, K_NR };
enum { S_GROUP, S_NAME, S_ALGO, S_PROTO, S_COUNT, S_INCOMPLETE, S_SKEW, S_TRANSFER, S_WAIT,
       S_BUSBW, S_NR };

#define NUM(title) { title, 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME }
#define ALGO { "algorithm", 9, OSC_ALIGN_LEFT, false, OSC_STAT_NAME }
#define PROTO { "protocol", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME }
static const struct osc_column call_columns[K_NR] = {
	[K_GROUP] = { "group", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[K_SEQ] = NUM("seq"),
	[K_NAME] = { "collective", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[K_MB] = NUM("msg_mb"),
	[K_ALGO] = ALGO,
	[K_PROTO] = PROTO,
	[K_RANKS] = NUM("ranks"),
	[K_MISSING] = NUM("missing_ranks"),
	[K_FIRST] = NUM("first_rank"),
	[K_LAST] = NUM("last_rank"),
	[K_SKEW] = NUM("skew_us"),
	[K_TRANSFER] = NUM("transfer_us"),
	[K_WAIT] = NUM("wait_us"),
	[K_WAITED] = NUM("waited_rank"),
	[K_BUSBW] = NUM("busbw_gbs"),
};
static const struct osc_column sum_columns[S_NR] = {
	[S_GROUP] = { "group", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[S_NAME] = { "collective", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[S_ALGO] = ALGO,
	[S_PROTO] = PROTO,
	[S_COUNT] = NUM("count"),
	[S_INCOMPLETE] = NUM("incomplete"),
	[S_SKEW] = NUM("skew_us"),
	[S_TRANSFER] = NUM("transfer_us"),
	[S_WAIT] = NUM("wait_us"),
	[S_BUSBW] = NUM("mean_busbw_gbs"),
};
#undef NUM
#undef ALGO
#undef PROTO

const struct osc_column *osc_skew_columns(size_t *nr)
{
	*nr = K_NR;
	return call_columns;
}

const struct osc_column *osc_skew_sum_columns(size_t *nr)
{
	*nr = S_NR;
	return sum_columns;
}

/* Rank index r of ranks shown by its number (its index when unknown); "" for OSC_NONE. */
static void rank_text(const struct osc_summary *const *ranks, uint32_t r, char *buf, size_t size)
{
	if (r != OSC_NONE)
		snprintf(buf, size, "%lld",
			 (long long)(ranks[r]->rank.rank >= 0 ? ranks[r]->rank.rank : (int64_t)r));
}

/* ns as µs, empty when unknown (negative). */
static void time_text(int64_t ns, char *buf, size_t size)
{
	if (ns >= 0)
		osc_format_us_int(ns, buf, size);
}

static void bw_text(double bw, char *buf, size_t size)
{
	if (!isnan(bw))
		snprintf(buf, size, "%.3f", bw);
}

const char *osc_skew_cell(const struct osc_summary *const *ranks, const struct osc_skew *s,
			  size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_skew_call *c = &s->calls[row];

	buf[0] = '\0';
	switch (col) {
	case K_GROUP:
		return c->group;
	case K_NAME:
		return c->name;
	case K_ALGO:
		return c->algorithm;
	case K_PROTO:
		return c->protocol;
	case K_SEQ:
		snprintf(buf, size, "%u", c->seq);
		break;
	case K_MB:
		if (!isnan(c->bytes))
			snprintf(buf, size, "%.6f", c->bytes / 1e6);
		break;
	case K_RANKS:
	case K_MISSING:
		snprintf(buf, size, "%u", col == K_RANKS ? c->ranks : c->missing);
		break;
	case K_FIRST:
	case K_LAST:
	case K_WAITED:
		rank_text(ranks, col == K_FIRST ? c->first : col == K_LAST ? c->last : c->waited,
			  buf, size);
		break;
	case K_SKEW:
	case K_TRANSFER:
	case K_WAIT:
		time_text(col == K_SKEW ? c->skew : col == K_TRANSFER ? c->transfer : c->wait, buf,
			  size);
		break;
	case K_BUSBW:
		bw_text(call_busbw(c), buf, size);
		break;
	}
	return buf;
}

const char *osc_skew_sum_cell(const struct osc_skew *s, size_t row, size_t col, char *buf,
			      size_t size)
{
	const struct osc_skew_sum *u = &s->sums[row];
	int64_t time;

	buf[0] = '\0';
	switch (col) {
	case S_GROUP:
		return u->group;
	case S_NAME:
		return u->name;
	case S_ALGO:
		return u->algorithm;
	case S_PROTO:
		return u->protocol;
	case S_COUNT:
	case S_INCOMPLETE:
		snprintf(buf, size, "%llu",
			 (unsigned long long)(col == S_COUNT ? u->count : u->incomplete));
		break;
	case S_SKEW:
	case S_TRANSFER:
	case S_WAIT:
		time = col == S_SKEW ? u->skew : col == S_TRANSFER ? u->transfer : u->wait;
		osc_format_us_int(time, buf, size);
		break;
	case S_BUSBW:
		bw_text(u->busbw, buf, size);
		break;
	}
	return buf;
}
