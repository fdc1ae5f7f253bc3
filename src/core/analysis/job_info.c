/*
 * job_info.c - the inputs table of a job and its ranks against the world
 * size (job_info.h).
 */
#include "opscope/analysis/job_info.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"

/*
 * X-macro: the inputs table's columns (id, title, width, align, numeric,
 * stat). The table does not sort; the stat only orders what a narrow text
 * table drops first (export_text.c): the rank, its source, events, runs and
 * input stay.
 */
#define INFO_COLS(_)                                                      \
	_(RANK, "rank", 4, OSC_ALIGN_RIGHT, true, NAME)                   \
	_(WORLD, "world_size", 5, OSC_ALIGN_RIGHT, true, WALL)            \
	_(RANK_FROM, "rank_from", 12, OSC_ALIGN_LEFT, false, SELF)        \
	_(BACKEND, "backend", 7, OSC_ALIGN_LEFT, false, STDDEV)           \
	_(FORMAT, "format", 14, OSC_ALIGN_LEFT, false, MIN)               \
	_(EVENTS, "events", 8, OSC_ALIGN_RIGHT, true, COUNT)              \
	_(RUNS, "runs", 4, OSC_ALIGN_RIGHT, true, SELF_PCT)               \
	_(RUN_SOURCE, "run_source", 12, OSC_ALIGN_LEFT, false, MAX)       \
	_(RUNS_WALL, "runs_wall_us", 10, OSC_ALIGN_RIGHT, true, TOTAL)    \
	_(DEVICE, "device", 3, OSC_ALIGN_LEFT, false, P99)                \
	_(CALLS, "collective_calls", 5, OSC_ALIGN_RIGHT, true, MEAN)      \
	_(BYTES, "input_bytes", 10, OSC_ALIGN_RIGHT, true, COUNT_PER_RUN) \
	_(FROM, "from", 7, OSC_ALIGN_LEFT, false, P90)                    \
	_(INPUT, "input", 12, OSC_ALIGN_LEFT, false, NAME)

enum {
#define INFO_COL_ENUM(id, title, w, a, num, stat) IC_##id,
	INFO_COLS(INFO_COL_ENUM)
#undef INFO_COL_ENUM
	IC_NR
};

const struct osc_column *osc_job_info_columns(size_t *nr)
{
	static const struct osc_column cols[] = { INFO_COLS(OSC_COLUMN_DEF) };

	*nr = IC_NR;
	return cols;
}

static const char *const source_names[] = {
#define OSC_SUM_SOURCE_TEXT(name, text) text,
	OSC_SUM_SOURCE_LIST(OSC_SUM_SOURCE_TEXT)
#undef OSC_SUM_SOURCE_TEXT
};

/*
 * The time the runs cover: their spans (runs.h; NVTX ranges may nest or
 * overlap, so the windows are never simply added).
 */
static int64_t runs_wall(const struct osc_summary *s)
{
	size_t n;
	struct osc_run_span *span = osc_summary_spans(s, NULL, &n);
	int64_t covered = osc_run_spans_wall(span, n);

	free(span);
	return covered;
}

const char *osc_job_info_cell(const struct osc_job *j, size_t row, size_t col, char *buf,
			      size_t size)
{
	const struct osc_summary *s = &j->ranks[row];

	buf[0] = '\0';
	switch (col) {
	case IC_RANK:
		snprintf(buf, size, "%lld", (long long)s->rank.rank);
		break;
	case IC_WORLD:
		if (s->rank.world_size >= 0)
			snprintf(buf, size, "%lld", (long long)s->rank.world_size);
		break;
	case IC_RANK_FROM:
		return osc_rank_source_name(s->rank.source);
	case IC_BACKEND:
		return s->rank.backend;
	case IC_FORMAT:
		return osc_format_name(s->format);
	case IC_EVENTS:
		snprintf(buf, size, "%llu", (unsigned long long)s->events);
		break;
	case IC_RUNS:
		snprintf(buf, size, "%zu", s->nr_runs);
		break;
	case IC_RUN_SOURCE:
		return osc_summary_str(s, s->run_source);
	case IC_RUNS_WALL:
		osc_format_us_int(runs_wall(s), buf, size);
		break;
	case IC_DEVICE:
		return s->has_device ? "yes" : "no";
	case IC_CALLS:
		snprintf(buf, size, "%zu", s->nr_calls);
		break;
	case IC_BYTES:
		snprintf(buf, size, "%llu", (unsigned long long)s->input_bytes);
		break;
	case IC_FROM:
		return source_names[s->source];
	case IC_INPUT:
		return s->path;
	}
	return buf;
}

/* How many ranks state rank i's world size; false when a rank before i states it too. */
static bool first_of_world(const struct osc_job *j, size_t i, size_t *n)
{
	int64_t w = j->ranks[i].rank.world_size;
	bool first = true;

	*n = 0;
	for (size_t k = 0; k < j->nr; k++) {
		*n += j->ranks[k].rank.world_size == w;
		first &= !(k < i && j->ranks[k].rank.world_size == w);
	}
	return first;
}

/* The world size most ranks state (-1 when none states one), and how many distinct ones. */
static int64_t common_world(const struct osc_job *j, size_t *distinct)
{
	int64_t best = -1;
	size_t best_n = 0, n;

	*distinct = 0;
	for (size_t i = 0; i < j->nr; i++) {
		if (j->ranks[i].rank.world_size < 0 || !first_of_world(j, i, &n))
			continue;
		(*distinct)++;
		if (n > best_n) {
			best = j->ranks[i].rank.world_size;
			best_n = n;
		}
	}
	return best;
}

/* Append piece to buf at *len, never past size: text that does not fit ends in "...". */
static void append(char *buf, size_t size, size_t *len, const char *piece)
{
	size_t n = strlen(piece);

	if (*len >= size)
		return;
	if (*len + n + 4 > size) {
		snprintf(buf + *len, size - *len, "...");
		*len = size;
		return;
	}
	memcpy(buf + *len, piece, n + 1);
	*len += n;
}

/* "; missing A-B, C" for the ranks of [0, world) the job lacks (its ranks are sorted). */
static void missing_ranks(const struct osc_job *j, int64_t world, char *buf, size_t size,
			  size_t *len)
{
	size_t i = 0;
	bool first = true;

	for (int64_t r = 0; r < world;) {
		int64_t end;
		char piece[64];

		while (i < j->nr && j->ranks[i].rank.rank < r)
			i++;
		if (i < j->nr && j->ranks[i].rank.rank == r) {
			r++;
			continue;
		}
		end = i < j->nr && j->ranks[i].rank.rank < world ? j->ranks[i].rank.rank : world;
		if (end - r > 1)
			snprintf(piece, sizeof(piece), "%s%lld-%lld", first ? "; missing " : ", ",
				 (long long)r, (long long)(end - 1));
		else
			snprintf(piece, sizeof(piece), "%s%lld", first ? "; missing " : ", ",
				 (long long)r);
		append(buf, size, len, piece);
		first = false;
		r = end;
	}
}

/* "; world sizes differ: 8 (3 ranks), 16 (1 rank)", each size once in first-seen order. */
static void world_sizes(const struct osc_job *j, char *buf, size_t size, size_t *len)
{
	append(buf, size, len, "; world sizes differ:");
	for (size_t i = 0, n; i < j->nr; i++) {
		int64_t w = j->ranks[i].rank.world_size;
		char piece[64];

		if (!first_of_world(j, i, &n))
			continue;
		if (w < 0)
			snprintf(piece, sizeof(piece), " none (%zu rank%s)", n, n == 1 ? "" : "s");
		else
			snprintf(piece, sizeof(piece), " %lld (%zu rank%s)", (long long)w, n,
				 n == 1 ? "" : "s");
		append(buf, size, len, i ? "," : "");
		append(buf, size, len, piece);
	}
}

const char *osc_job_world_text(const struct osc_job *j, char *buf, size_t size)
{
	size_t distinct, len;
	int64_t world = common_world(j, &distinct);
	if (world < 0)
		len = (size_t)snprintf(buf, size, "%zu; no world size recorded", j->nr);
	else
		len = (size_t)snprintf(buf, size, "%zu of world size %lld", j->nr,
				       (long long)world);
	if (len >= size)
		return buf;
	if (distinct > 1)
		world_sizes(j, buf, size, &len);
	else if (world > 0)
		missing_ranks(j, world, buf, size, &len);
	return buf;
}
