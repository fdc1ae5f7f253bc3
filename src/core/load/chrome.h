/*
 * chrome.h - the state of a Chrome trace-event parse, shared by
 * load_chrome.c (the walk over the input, events, the end of a load),
 * chrome_shards.c (the event array parsed on all cores) and chrome_pairs.c
 * (B and E events paired at the end); private to them.
 */
#ifndef OPSCOPE_LOAD_CHROME_H
#define OPSCOPE_LOAD_CHROME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/json_scan.h"
#include "load/load_internal.h"

#define TCACHE 1024 /* (pid, tid) -> thread cache slots, power of two */

/* A growing NUL-terminated byte string. */
struct sbuf {
	char *p;
	size_t len, alloc;
};

static inline char *sb_room(struct sbuf *b, size_t n)
{
	OSC_GROW(b->p, b->len + n + 1, b->alloc);
	return b->p + b->len;
}

static inline void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *to = sb_room(b, n);

	if (n) /* s may be NULL then (an absent value) */
		memcpy(to, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void sb_addc(struct sbuf *b, char c)
{
	sb_add(b, &c, 1);
}

/* B or E event waiting for its partner. */
struct pending {
	struct osc_event ev; /* B: the whole event (dur 0); E: ts, thread and name */
	struct osc_event_extra extra; /* B: its op and provider */
	size_t args;         /* B: offset of its args in be_args, 0 for none */
	int64_t offset;      /* byte offset, for warnings */
	uint32_t seq;        /* file order */
	bool begin;
};

/* Process-level metadata, applied to every thread of the pid at the end. */
struct proc {
	osc_str name;
	int64_t sort;
};

/* Events that speak for a format, counted as they are kept (detect_format). */
struct votes {
	uint64_t ort, kineto, legacy, ne;
};

/* Where the walk is in the top-level value. */
enum state { ST_START, ST_OBJ_KEY, ST_OBJ_SEP, ST_ARR_ELEM, ST_ARR_SEP, ST_DONE, ST_END };

struct chrome {
	osc_str last[JF_COUNT];  /* per event field: the string it held last */
	struct osc_load_ctx *lc;
	struct osc_trace *t;
	struct osc_input *in;
	struct js_ctx js;
	struct js_event ev;
	enum state state;
	bool object_top, in_object, saw_events, events_not_array, kineto_keys;
	int64_t events_at;      /* offset of traceEvents' value, when events_not_array */
	uint64_t nr_elems;      /* elements of the event array */
	struct sbuf scratch;    /* decoded strings, args copies */
	struct sbuf shape;      /* shape rendering */
	struct sbuf shape_key;  /* raw bytes a shape is rendered from */
	struct osc_strtab raw_shapes; /* distinct raw bytes of shapes, once used */
	osc_str *shape_of;      /* raw_shapes id -> the rendered shape */
	size_t alloc_shape_of;
	struct sbuf meta;       /* top-level keys other than traceEvents */
	struct pending *pend;
	size_t nr_pend, alloc_pend;
	struct sbuf be_args;
	struct proc *procs;
	size_t nr_procs, alloc_procs;
	uint32_t *proc_of;      /* pid string id -> index in procs, OSC_NONE */
	size_t alloc_proc_of;
	uint32_t *traits;       /* string id -> NT_* | class << 8 | kind << 16 */
	size_t alloc_traits;
	uint64_t tc_key[TCACHE];
	uint32_t tc_val[TCACHE];
	uint64_t next_tick;
	bool used_refs;         /* args kept as byte ranges of a stable input */
	bool raw_args;          /* the input is spooled: args are copied as they are
				   (osc_trace_add_event_raw), so the spool can go as it
				   is parsed */
	bool tried_split;       /* the walk tried osc_chrome_parallel_events */
	struct votes votes;     /* what the events kept so far say of the format */
};

/* Set ch up to parse in (a whole load's or one shard's) into t. */
void osc_chrome_init(struct chrome *ch, struct osc_load_ctx *lc, struct osc_trace *t,
		     struct osc_input *in);
/* Free what ch holds (not ch itself, its trace or its input). */
void osc_chrome_release(struct chrome *ch);
/* One step of the walk from *pp, with the repair bookkeeping around it. */
enum js_rc osc_chrome_step(struct chrome *ch, const char **pp);
/* The thread of (pid, tid) in ch's trace, added when new. */
uint32_t osc_chrome_thread_of(struct chrome *ch, osc_str pid, osc_str tid);
/* The metadata of process pid, added (empty) when new. */
struct proc *osc_chrome_proc_of(struct chrome *ch, osc_str pid);
/*
 * Keep B (begin) or E event e for pairing at the end; its args are the first
 * args_len bytes of ch->scratch.
 */
void osc_chrome_add_pending(struct chrome *ch, const struct osc_event *e,
			    const struct osc_event_extra *x, bool begin, int64_t off,
			    size_t args_len);
/*
 * Whether the trace has room for event e (else it is counted as dropped,
 * at byte offset off); a kept event votes for the format.
 */
bool osc_chrome_keep(struct chrome *ch, const struct osc_event *e, int64_t off);
/*
 * Pair the pending B and E events of each (pid, tid) thread as a stack into
 * complete events; unmatched ones are dropped and counted.
 */
void osc_chrome_match_pairs(struct chrome *ch);

/* Whether the event array from p (the walk is at an element) is worth parsing on all cores. */
bool osc_chrome_can_split(const struct chrome *ch, const char *p);
/*
 * Parse the event array from *pp (just inside its '[') on all cores and merge
 * the shards; on return *pp and ch->state say where the sequential walk goes
 * on.
 */
enum osc_status osc_chrome_parallel_events(struct chrome *ch, const char **pp);

#endif
