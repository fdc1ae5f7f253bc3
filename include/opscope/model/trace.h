/*
 * trace.h - the in-memory trace model.
 *
 * A loaded trace is a table of compact event records (struct osc_event),
 * strings interned in one struct osc_strtab, a thread table, a side table of
 * device-kernel facts, and the raw JSON text of each event's args for detail
 * views. Loaders build it; analysis only reads it.
 *
 * Invariants after a successful load:
 * - events are sorted by (ts ascending, dur descending, file order), so a
 *   parent starts no later than its children and comes first on ties;
 * - B/E pairs are matched per thread as a stack (rules in load_chrome.c) and
 *   stored as one complete (X) event;
 * - M (metadata) events are folded into the thread table, not stored as events;
 * - times are integer nanoseconds parsed exactly from the decimal text
 *   (Kineto's "1712195495505583.123" µs is 1712195495505583123 ns);
 * - every string is valid UTF-8 (invalid bytes were replaced by U+FFFD and
 *   counted in OSC_WARN_BAD_UTF8).
 */
#ifndef OPSCOPE_TRACE_H
#define OPSCOPE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/sat.h"
#include "opscope/base/strtab.h"

#define OSC_NONE UINT32_MAX /* "no index" for uint32_t references */
#define OSC_NO_ID INT64_MIN /* "absent" for correlation / external ids */

/*
 * A correlation, external or flow id as an event keeps it, in 32 bits: the
 * id itself when it lies in [0, 2^31) (most do: they count up from 0),
 * else OSC_ID_WIDE | its place among the trace's wide ids (osc_trace_id).
 * Equal ids of one trace have equal codes, so codes compare and hash as
 * the ids do; osc_trace_id_value gives the id back.
 */
typedef uint32_t osc_id;
#define OSC_ID_NONE UINT32_MAX  /* no id (OSC_NO_ID) */
#define OSC_ID_WIDE 0x80000000u /* the rest is an index into the wide ids */

/* X-macro: input formats, with the name `opscope info` prints. */
#define OSC_FORMAT_LIST(_)                                    \
	_(UNKNOWN, "unknown")                                 \
	_(ORT, "onnxruntime")                                 \
	_(KINETO, "pytorch-kineto")                           \
	_(PYTORCH_LEGACY, "pytorch-autograd")                 \
	_(NEURAL_ENGINE, "intel-neural-engine")               \
	_(CHROME, "chrome-trace")                             \
	_(NSYS, "nsys-sqlite")                                \
	_(NVPROF, "nvprof-sqlite")

enum osc_format {
#define OSC_FORMAT_ENUM(name, text) OSC_FORMAT_##name,
	OSC_FORMAT_LIST(OSC_FORMAT_ENUM)
#undef OSC_FORMAT_ENUM
	OSC_FORMAT_COUNT
};

/* Name of a format ("onnxruntime"). */
const char *osc_format_name(enum osc_format f);

/* Trace-event phase after loading (B/E become X). */
enum osc_phase {
	OSC_PH_COMPLETE, /* X, or a matched B/E pair */
	OSC_PH_INSTANT,  /* i, I */
	OSC_PH_FLOW_START, /* s */
	OSC_PH_FLOW_STEP,  /* t */
	OSC_PH_FLOW_END,   /* f */
	OSC_PH_COUNTER,    /* C */
	OSC_PH_OTHER,      /* any other phase letter (async b/e/n, objects ...) */
};

/* X-macro: what an event is, decided by the loader from format, cat and name. */
#define OSC_KIND_LIST(_)                                                           \
	_(OTHER, "other")           /* anything below does not describe */          \
	_(RUN, "run")               /* ORT model_run, ProfilerStep#N, IterationN */   \
	_(EXECUTOR, "executor")     /* ORT SequentialExecutor::Execute (run fallback) */ \
	_(SESSION, "session")       /* ORT session-level events (loading, init) */    \
	_(HOST_OP, "op")            /* ORT *_kernel_time, Kineto cpu_op, NE op, generic X */ \
	_(PYTHON, "python")         /* Kineto python_function */                      \
	_(ANNOTATION, "annotation") /* user_annotation, gpu_user_annotation, NVTX */  \
	_(RUNTIME, "runtime")       /* cuda_runtime / cuda_driver / hip runtime call */ \
	_(KERNEL, "kernel")         /* device kernel (Kineto kernel, ORT Kernel) */   \
	_(MEMCPY, "memcpy")         /* device memcpy */                                \
	_(MEMSET, "memset")         /* device memset */                                \
	_(FLOW, "flow")             /* s/t/f flow events (ac2g, fwdbwd) */            \
	_(FENCE, "fence")           /* ORT *_fence_before / *_fence_after */

enum osc_kind {
#define OSC_KIND_ENUM(name, text) OSC_KIND_##name,
	OSC_KIND_LIST(OSC_KIND_ENUM)
#undef OSC_KIND_ENUM
	OSC_KIND_COUNT
};

/* Name of a kind ("kernel"). */
const char *osc_kind_name(enum osc_kind k);

/* True for kinds that run on a device (kernel, memcpy, memset). */
static inline bool osc_kind_is_device(uint8_t kind)
{
	return kind == OSC_KIND_KERNEL || kind == OSC_KIND_MEMCPY || kind == OSC_KIND_MEMSET;
}

/* True for the flow phases (s, t, f). */
static inline bool osc_phase_is_flow(uint8_t ph)
{
	return ph >= OSC_PH_FLOW_START && ph <= OSC_PH_FLOW_END;
}

/* Event flags. */
enum {
	OSC_EVF_FROM_BE = 1 << 0,   /* built from a matched B/E pair */
	OSC_EVF_NO_DUR = 1 << 1,    /* X event without dur (dur taken as 0) */
	OSC_EVF_NEG_DUR = 1 << 2,   /* negative dur in the file (stored as 0) */
};

/*
 * One event: 48 bytes. Its op-level key and execution provider, which only
 * some formats have, are kept apart (struct osc_event_extra, osc_trace_op).
 */
struct osc_event {
	int64_t ts;       /* start, ns, on the trace's own clock */
	int64_t dur;      /* ns, >= 0; 0 for instants and flows */
	osc_id corr_id;   /* correlation id (Kineto args.correlation, ORT correlation_id,
			     flow id for s/t/f), or OSC_ID_NONE */
	osc_id ext;       /* Kineto args."External id", or OSC_ID_NONE */
	osc_str name;     /* event name */
	osc_str cat;      /* category ("" if absent) */
	osc_str shape;    /* input shapes, e.g. "float(1x3x224x224),int64(4)"; "" if none */
	uint32_t thread;  /* index into trace->threads */
	uint32_t kernel;  /* index into trace->kernels for device events, else OSC_NONE */
	uint8_t ph;       /* enum osc_phase */
	uint8_t kind;     /* enum osc_kind */
	uint8_t flags;    /* OSC_EVF_* */
	uint8_t args_hi;  /* private: bits 32-39 of its args place (osc_trace_args_place) */
};

/*
 * What an event has beyond its record in the formats that have it: the
 * op-level key where it is not the name (ORT args.op_name, an NE op type)
 * and the ORT execution provider. A trace keeps them parallel to its events
 * only once some event has one (osc_trace.extras), so a Kineto trace pays
 * nothing for them.
 */
struct osc_event_extra {
	osc_str op;       /* op-level key; the event's name when it has none of its own */
	osc_str provider; /* ORT execution provider ("" if none) */
};

/* The extra of event e when it has none of its own: its op is its name. */
static inline struct osc_event_extra osc_event_no_extra(const struct osc_event *e)
{
	return (struct osc_event_extra){ .op = e->name };
}

/*
 * A flow event (ph s, t or f: Kineto's ac2g and fwdbwd arrows), kept apart
 * from the events once a trace is loaded (osc_trace_split_flows): 24 bytes
 * against an event's 52 with its args place, and a third of a Kineto
 * trace's events are flows. Its name and category, the same for most flows
 * of a trace, are kept once (osc_trace_flow_name), its phase beside them
 * (osc_flow_ph). Its kind is OSC_KIND_FLOW; its dur is 0.
 */
struct osc_flow {
	int64_t ts;      /* ns, on the trace's clock */
	osc_id id;       /* flow id (id, else bind_id), or OSC_ID_NONE */
	uint32_t thread; /* index into trace->threads */
	uint32_t at;     /* its place in model order among the events and flows together */
	uint32_t label;  /* trace->flow_names[label >> 2]; phase OSC_PH_FLOW_START + (label & 3) */
};

/* The name and category of flows: each distinct pair once per trace. */
struct osc_flow_name {
	osc_str name, cat;
};

/*
 * Facts about a device event (kernel, memcpy, memset). Unknown values are -1.
 * A trace keeps each distinct set of facts once (osc_trace_add_kernel):
 * launches of one kernel with one configuration share an entry. No padding,
 * so equal facts are equal bytes.
 */
struct osc_kernel {
	int32_t grid[3], block[3];
	int32_t stream, device, registers;
	float occupancy;    /* est. achieved occupancy %, -1 if absent */
	int64_t shared_mem; /* bytes, static + dynamic where both are given */
	int64_t bytes;      /* memcpy/memset bytes, -1 if absent */
};

/* One (pid, tid) pair. pid/tid are kept as text: files mix numbers and strings. */
struct osc_thread {
	osc_str pid, tid;       /* as written ("4037", "Traces", "CPU functions") */
	osc_str process_name;   /* from M process_name, "" if none */
	osc_str thread_name;    /* from M thread_name, "" if none */
	int64_t process_sort, thread_sort; /* M *_sort_index, 0 if none */
	uint64_t nr_events;     /* events on this thread */
};

/* X-macro: things tolerated while loading, counted with the first byte offset. */
#define OSC_WARN_LIST(_)                                                        \
	_(TRUNCATED, "input ends inside an event; incomplete events dropped")   \
	_(GZIP_CUT, "compressed stream cut short: what it held in full is kept") \
	_(BAD_EVENT, "events skipped: not an object or missing ph/ts")          \
	_(UNMATCHED_BEGIN, "B events without a matching E")                    \
	_(UNMATCHED_END, "E events without a matching B")                       \
	_(END_NAME_DIFFERS, "E events whose name differs from the B they close") \
	_(BAD_UTF8, "strings with invalid UTF-8 or a NUL (replaced by U+FFFD)") \
	_(BIG_NUMBER, "numbers beyond 64 bits (saturated)")                     \
	_(NEGATIVE_DUR, "events with a negative dur (taken as 0)")              \
	_(UNESCAPED_QUOTE, "strings with an unescaped quote (repaired)")        \
	_(TRAILING_DATA, "data after the end of the trace ignored")             \
	_(TRAILING_COMPRESSED, "tail after the last gzip member or zstd frame ignored " \
			       "(offset in the file)")                                  \
	_(TOO_MANY_EVENTS, "events beyond 2^32-2 dropped")                     \
	_(REPEATED_CALL, "runtime rows repeating a call's correlation id (one kept per call)") \
	_(BAD_TIME, "rows without a start time (zero, negative or NULL: skipped)")          \
	_(DB_SHORT, "database shorter than its header says (the missing pages are unused)") \
	_(WAL_IGNORED, "-wal file beside the database not read: its changes are missing") \
	_(UNKNOWN_PHASE, "events with a phase (ph) the trace format does not have (skipped)") \
	_(BAD_DUR, "X events whose dur is not a number, e.g. Infinity (skipped)")          \
	_(SECOND_EVENTS, "traceEvents arrays after the first (ignored: the first is the trace)") \
	_(HUGE_SUMS, "trace whose times are so large that sums saturate at 2^63-1 ns "  \
		     "(292 years): such totals are lower bounds")

enum osc_warn {
#define OSC_WARN_ENUM(name, text) OSC_WARN_##name,
	OSC_WARN_LIST(OSC_WARN_ENUM)
#undef OSC_WARN_ENUM
	OSC_WARN_COUNT
};

struct osc_warning {
	uint64_t count;       /* 0: did not happen */
	int64_t first_offset; /* byte offset of the first occurrence */
};

/* Text of a warning kind. */
const char *osc_warn_text(enum osc_warn w);

/*
 * One warning as text into buf: "3 B events without a matching E: first at
 * byte 1234" (the byte part only when the input has offsets). Returns buf.
 */
const char *osc_warning_format(const struct osc_warning *x, enum osc_warn w, char *buf,
			       size_t size);

/*
 * What the analysis layer builds from a trace and keeps with it
 * (trace_cache.h). The model only tells it that the events changed or that
 * the trace goes away, through these callbacks, and so never depends on it.
 */
struct osc_trace_derived {
	void (*drop)(struct osc_trace_derived *d); /* the events changed: forget */
	void (*free)(struct osc_trace_derived *d); /* the trace is released */
};

/*
 * Args text copied as it is: the reference OSC_ARGS_REF(v), base <= v <
 * base + len, reads text[v - base]. A trace's blocks follow each other
 * (each base is the end of the one before), so a part's blocks are taken
 * over whole when it is merged, not copied; the last one takes the next
 * copies while it has room.
 */
struct osc_args_block {
	uint64_t base;
	char *text;  /* room of alloc bytes (osc_xroom), len used */
	size_t len, alloc;
};

struct osc_trace {
	struct osc_strtab strs;
	struct osc_event *events;
	size_t nr_events, alloc_events;
	uint32_t *args_off;  /* parallel to events: the low 32 bits of each one's args
				place (osc_trace_args_place) */
	char *args_text;     /* NUL-separated raw JSON of args objects; byte 0 is "" */
	size_t args_len, args_alloc;
	const char *args_src; /* the mapped file that args refs point into, or NULL;
				 the trace owns the mapping (args_map) */
	void *args_map;
	size_t args_map_len;
	struct osc_args_block *raw; /* args copied as they are (osc_trace_add_event_raw),
				       by base; when there are some, references point
				       into them, not into args_src */
	size_t nr_raw, alloc_raw;
	struct osc_mapguard *args_guard; /* private: watches args_map when it is the
					    user's file, which may change (mapguard.h) */
	struct osc_args_view *args_view; /* private: text handed out by osc_trace_args */
	bool device_args;    /* device events without args of their own show their kernel
				record and correlation id as args (osc_trace_args): the
				SQLite loaders keep no args text for them */
	struct osc_trace_derived *derived; /* private: NULL until an analysis keeps
					      something (set once, atomically) */
	bool derived_used;             /* private: derived holds something */
	bool unsorted;                 /* private: an event was added before an earlier one */
	bool has_providers;            /* an event has a provider (an ORT execution provider) */
	struct osc_event_extra *extras; /* parallel to events, or NULL: every event's op is
					   its name and none has a provider */
	struct osc_kernel *kernels; /* distinct facts, in the order first added */
	size_t nr_kernels, alloc_kernels;
	uint32_t *kernel_slots;  /* private: open-addressing index of kernels */
	size_t kernel_slots_size; /* private: slots, a power of two, or 0 */
	struct osc_thread *threads;
	size_t nr_threads, alloc_threads;
	enum osc_format format;
	char *path;             /* as given; "-" for standard input */
	const char *compression; /* "gzip" or "zstd": how the input was compressed; NULL: not */
	uint64_t input_bytes;   /* uncompressed bytes parsed */
	uint64_t file_bytes;    /* bytes read from the file (compressed size for .gz) */
	uint64_t nr_metadata;   /* M events folded into the thread table */
	uint64_t ph_counts[256]; /* events per phase letter as written in the file */
	struct osc_warning warnings[OSC_WARN_COUNT];
	char *meta_json;        /* top-level keys other than traceEvents, as one JSON
				   object text (may be ""), for `info`/detail views */
	struct osc_flow *flows; /* the flow events, in model order (osc_trace_split_flows) */
	size_t nr_flows;
	struct osc_flow_name *flow_names; /* the distinct names of the flow events */
	size_t nr_flow_names, alloc_flow_names;
	struct osc_i64map *flow_name_map; /* private: (name, cat) -> index into flow_names */
	struct osc_flow_args *flow_args; /* the flows with args, by flow index */
	size_t nr_flow_args;
	size_t flows_in_events;  /* private: flow events still among the events */
	int64_t *wide_ids;      /* the ids that osc_id codes as OSC_ID_WIDE | index */
	size_t nr_wide_ids, alloc_wide_ids;
	struct osc_i64map *wide_map; /* private: id -> index into wide_ids */
};

/*
 * An event's args place, 40 bits (the low 32 in args_off, the rest in the
 * event's args_hi): 0 for no args, an offset into args_text for a copy, or
 * OSC_ARGS_REF(off) for args kept by reference: a mapped input keeps each
 * event's args as the object at byte off of it instead of a copy (most of a
 * Kineto trace is args), and osc_trace_args finds its end and minifies it
 * when asked; a spooled one copies the object's text as it is into the
 * trace's raw blocks instead, read the same way. Offsets below 2^39 fit, past
 * them args are copied.
 */
#define OSC_ARGS_REF_BIT ((uint64_t)1 << 39)
#define OSC_ARGS_REF_MAX_OFF OSC_ARGS_REF_BIT
#define OSC_ARGS_REF(off) (OSC_ARGS_REF_BIT | (uint64_t)(off))

/* The args place of event e whose low bits are lo (its args_off entry). */
static inline uint64_t osc_event_args_place(const struct osc_event *e, uint32_t lo)
{
	return (uint64_t)e->args_hi << 32 | lo;
}

/* The args place of event ev of t. */
static inline uint64_t osc_trace_args_place(const struct osc_trace *t, size_t ev)
{
	return osc_event_args_place(&t->events[ev], t->args_off[ev]);
}

/* Give event e, whose low bits live at *lo, the args place `place`. */
static inline void osc_event_args_set(struct osc_event *e, uint32_t *lo, uint64_t place)
{
	*lo = (uint32_t)place;
	e->args_hi = (uint8_t)(place >> 32);
}

/*
 * Events are indexed by uint32_t and OSC_NONE is UINT32_MAX, so a trace holds
 * at most OSC_MAX_EVENTS; loaders stop adding (and warn) beyond it.
 */
#define OSC_MAX_EVENTS ((size_t)UINT32_MAX - 1)

/* The args of a flow that has some: its args place. */
struct osc_flow_args {
	uint32_t flow;
	uint64_t off;
};

/*
 * Start of the trace (its first event's or flow's ts): the origin of
 * start_us columns and timelines.
 */
static inline int64_t osc_trace_origin(const struct osc_trace *tr)
{
	if (!tr->nr_flows)
		return tr->nr_events ? tr->events[0].ts : 0;
	if (!tr->nr_events || tr->flows[0].ts < tr->events[0].ts)
		return tr->flows[0].ts;
	return tr->events[0].ts;
}

/*
 * Walking the events and the flows together in model order, with e events
 * and f flows taken: whether flow f comes next (else event e does).
 */
static inline bool osc_trace_flow_next(const struct osc_trace *tr, size_t e, size_t f)
{
	return f < tr->nr_flows && tr->flows[f].at == e + f;
}

/* The name and category of flow f of t. */
static inline const struct osc_flow_name *osc_trace_flow_name(const struct osc_trace *t,
							    const struct osc_flow *f)
{
	return &t->flow_names[f->label >> 2];
}

/* The phase of a flow: OSC_PH_FLOW_START, _STEP or _END. */
static inline uint8_t osc_flow_ph(const struct osc_flow *f)
{
	return (uint8_t)(OSC_PH_FLOW_START + (f->label & 3));
}

/*
 * Flow event e of t (a flow phase, whose name t keeps: every flow event
 * added to t or to a part taken by it has it), at place `at` in model
 * order, as a flow.
 */
struct osc_flow osc_flow_of(const struct osc_trace *t, const struct osc_event *e, size_t at);

/* Events as the file had them: the events and the flows. */
static inline size_t osc_trace_nr_written(const struct osc_trace *tr)
{
	return tr->nr_events + tr->nr_flows;
}

/* Set up an empty trace (format UNKNOWN, no events). */
void osc_trace_init(struct osc_trace *t);
/* Free everything the trace owns. */
void osc_trace_release(struct osc_trace *t);

/* Intern s[0..len) in the trace's string table. */
static inline osc_str osc_trace_intern(struct osc_trace *t, const char *s, size_t len)
{
	return osc_strtab_intern(&t->strs, s, len);
}

/* Text of a string id. */
static inline const char *osc_trace_str(const struct osc_trace *t, osc_str id)
{
	return osc_strtab_get(&t->strs, id);
}

/* The op-level key of event ev: its own (ORT, NE), else its name. */
static inline osc_str osc_trace_op(const struct osc_trace *t, size_t ev)
{
	return t->extras ? t->extras[ev].op : t->events[ev].name;
}

/* The execution provider of event ev ("" if none). */
static inline osc_str osc_trace_provider(const struct osc_trace *t, size_t ev)
{
	return t->extras ? t->extras[ev].provider : OSC_STR_EMPTY;
}

/* The code events of t keep for id v (OSC_NO_ID: OSC_ID_NONE). */
osc_id osc_trace_id(struct osc_trace *t, int64_t v);

/* The id a code of t stands for (OSC_ID_NONE: OSC_NO_ID). */
static inline int64_t osc_trace_id_value(const struct osc_trace *t, osc_id id)
{
	if (id == OSC_ID_NONE)
		return OSC_NO_ID;
	return id & OSC_ID_WIDE ? t->wide_ids[id & ~OSC_ID_WIDE] : (int64_t)id;
}

/*
 * Append an event (copied) with its extra (NULL: its op is its name, no
 * provider) and the raw JSON text of its args (args may be NULL or empty).
 * Returns its index. Invalidates pointers into t->events and t->extras.
 */
uint32_t osc_trace_add_event(struct osc_trace *t, const struct osc_event *ev,
			     const struct osc_event_extra *extra, const char *args,
			     size_t args_len);

/*
 * Append an event with its extra (as osc_trace_add_event) whose args object
 * is the JSON text args[0 .. args_len), nothing in it to repair: copied as
 * it is into t's raw blocks and kept as a reference there (rendered
 * minified when asked, as a reference into the input is), which spares the
 * loader the cost of minifying. A trace keeps references of one kind: these
 * or those into args_src. Invalidates pointers into t->events and t->extras.
 */
uint32_t osc_trace_add_event_raw(struct osc_trace *t, const struct osc_event *ev,
				 const struct osc_event_extra *extra, const char *args,
				 size_t args_len);

/*
 * Append an event with its extra (as osc_trace_add_event) whose args are
 * OSC_ARGS_REF(off) in t->args_src (the caller checked the limit).
 * Invalidates pointers into t->events and t->extras.
 */
uint32_t osc_trace_add_event_ref(struct osc_trace *t, const struct osc_event *ev,
				 const struct osc_event_extra *extra, uint64_t ref);

/*
 * Keep extras for t's events from now on (t->extras), the events so far
 * with none of their own: for a loader that sets ops after adding events.
 */
void osc_trace_start_extras(struct osc_trace *t);

/* Make room for n more events without growing again. */
void osc_trace_reserve(struct osc_trace *t, size_t n);

/* Give back the room past t's events (a reserve that was generous). */
void osc_trace_fit(struct osc_trace *t);

/*
 * One part of a trace built apart (a piece of a file parsed on another
 * core), sorted in model order, taken over by osc_trace_take_part and
 * waiting for osc_trace_merge_parts. Its ids are still its own.
 */
struct osc_trace_part {
	struct osc_event *events;
	uint32_t *args_off;     /* copies already count from the whole's args text */
	struct osc_event_extra *extras; /* parallel to events, or NULL (as osc_trace.extras) */
	size_t nr;
	size_t nr_flows;        /* flow events among them */
	osc_str *str;           /* the whole's id for the part's string id */
	uint32_t *thread;       /* the whole's index for the part's thread */
	uint32_t *kernel;       /* the whole's index for the part's kernel facts */
	osc_id *wide;           /* the whole's code for the part's wide id i (OSC_ID_WIDE | i) */
};

/* The whole's code for id, a code of part p. */
static inline osc_id osc_trace_part_id(const struct osc_trace_part *p, osc_id id)
{
	return id != OSC_ID_NONE && (id & OSC_ID_WIDE) ? p->wide[id & ~OSC_ID_WIDE] : id;
}

/* Renumber e, an event of p, from p's string, thread, kernel and wide ids to the whole's. */
static inline void osc_trace_part_remap(const struct osc_trace_part *p, struct osc_event *e)
{
	e->name = p->str[e->name];
	e->cat = p->str[e->cat];
	e->shape = p->str[e->shape];
	e->thread = p->thread[e->thread];
	if (e->kernel != OSC_NONE)
		e->kernel = p->kernel[e->kernel];
	e->corr_id = osc_trace_part_id(p, e->corr_id);
	e->ext = osc_trace_part_id(p, e->ext);
}

/* Renumber x, an extra of p, from p's string ids to the whole's. */
static inline void osc_trace_part_remap_extra(const struct osc_trace_part *p,
					      struct osc_event_extra *x)
{
	x->op = p->str[x->op];
	x->provider = p->str[x->provider];
}

/*
 * Take over s's raw args blocks (osc_trace_add_event_raw) after t's own,
 * without copying them: s's reference OSC_ARGS_REF(v) is t's
 * OSC_ARGS_REF(v + *shift) from now on (the caller moves s's places).
 */
void osc_trace_take_raw(struct osc_trace *t, struct osc_trace *s, uint64_t *shift);

/*
 * Take over the events of s (sorted by osc_trace_sort) for a later merge
 * into t: str[id] is t's id for s's string id, thread[i] t's index for s's
 * thread i, kernel[k] t's index for s's kernel facts k (all malloc'd, now
 * the part's). s's copied args text is appended to t now, its raw blocks
 * taken over (osc_trace_take_raw) and its per-thread counts added; s keeps
 * no events.
 */
void osc_trace_take_part(struct osc_trace *t, struct osc_trace *s, osc_str *str,
			 uint32_t *thread, uint32_t *kernel, struct osc_trace_part *out);

/*
 * Append the events of parts[0 .. nr) to t in model order, renumbered: a
 * stable merge where the earlier part wins ties, as the file order would
 * (so t stays sorted when it was and the parts follow it), on all cores.
 * Into an empty t, the flows go straight to t->flows (osc_trace_split_flows).
 * The parts' memory is given back as the merge consumes it, so the event
 * table is never held twice; the parts are freed. Events beyond
 * OSC_MAX_EVENTS (the latest ones) are dropped and counted. Invalidates
 * pointers into t->events.
 */
void osc_trace_merge_parts(struct osc_trace *t, struct osc_trace_part *parts, size_t nr);
/* Free a part that will not be merged. */
void osc_trace_part_release(struct osc_trace_part *p);

/*
 * Tell what the analyses keep of t that its events changed (loaders and the
 * merge call it; adding an event does it by itself).
 */
void osc_trace_drop_derived(struct osc_trace *t);

/*
 * Index of kernel facts k in t->kernels (to store in osc_event.kernel),
 * added if no entry has the same facts.
 */
uint32_t osc_trace_add_kernel(struct osc_trace *t, const struct osc_kernel *k);

/* Index of the thread (pid, tid), added if new. */
uint32_t osc_trace_thread(struct osc_trace *t, osc_str pid, osc_str tid);
/*
 * Renumber the threads: thread order[i] becomes thread i (order holds every
 * index once), and the events follow. For loaders, before anything reads t.
 */
void osc_trace_order_threads(struct osc_trace *t, const uint32_t *order);

/* Count a warning at a byte offset (the first offset is kept). */
void osc_trace_warn(struct osc_trace *t, enum osc_warn w, int64_t offset);

/*
 * Sort events into the model order (see invariants), carrying args_off and
 * extras along.
 * Loaders call it once at the end. Nothing is done when every event was
 * added in order (the adding functions note it; events changed in place are
 * not noticed).
 */
void osc_trace_sort(struct osc_trace *t);

/* Memory that sorts reuse, one after the other (zeroed: none yet). */
struct osc_sort_scratch {
	void *p;
	size_t bytes;
};

/* osc_trace_sort, its scratch memory taken from s and kept there for the next. */
void osc_trace_sort_in(struct osc_trace *t, struct osc_sort_scratch *s);

/* Free what s holds. */
void osc_sort_scratch_release(struct osc_sort_scratch *s);

/*
 * Take t's own events, sorted here (in s's memory), out as a part for
 * osc_trace_merge_parts (its ids are t's already): a loader that parsed the
 * start of a file itself and the rest on other cores merges them all in
 * one pass. t keeps no events.
 */
void osc_trace_take_own_part(struct osc_trace *t, struct osc_sort_scratch *s,
			     struct osc_trace_part *out);

/*
 * Move the flow events (ph s, t, f) out of t->events into t->flows, in
 * model order, each with its place among them all (osc_flow.at). Loaders
 * call it once, after the sort; the events keep their order.
 */
void osc_trace_split_flows(struct osc_trace *t);

/*
 * Minified JSON text of an event's args object ("" when it had none, or when
 * it was kept by reference and reading the file faulted: it shrank). The
 * text stays valid until the next osc_trace_args call on the same trace
 * (args kept by reference are rendered into one buffer); not thread-safe.
 * It is cheap (no system call): a caller that shows or uses args asks
 * osc_trace_args_lost once, since a file rewritten in place reads without
 * a fault.
 */
const char *osc_trace_args(const struct osc_trace *t, uint32_t ev);

/*
 * osc_trace_args rendered into the caller's buffer *buf (*alloc bytes, grown
 * as needed; the caller frees it), so safe from any thread while nothing
 * adds to t (the aggregation threads read conv and attention args with it).
 * The text stays valid until the next call with the same buffer.
 */
const char *osc_trace_args_into(const struct osc_trace *t, uint32_t ev, char **buf,
				size_t *alloc);

/* The args of flow f as osc_trace_args gives an event's ("" for none). */
const char *osc_trace_flow_args(const struct osc_trace *t, uint32_t f);

/*
 * Give back the pages of the trace file that reading args mapped in, after
 * reading the args of many events: they stay in the page cache and the next
 * read maps them again, but no longer count as the process's memory.
 * Safe while other threads read args (they map the pages again).
 */
void osc_trace_args_give_back(const struct osc_trace *t);

/*
 * Whether args kept by reference can no longer be read: the trace file they
 * point into shrank or was rewritten since the load (a profiler ran again
 * into it). Callers that showed or used args check it after reading them.
 */
bool osc_trace_args_lost(const struct osc_trace *t);

/*
 * a before b in model order, file order aside: it starts earlier, or at the
 * same time and lasts longer (a parent before its children).
 */
static inline bool osc_event_before(const struct osc_event *a, const struct osc_event *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

/* End of an event: ts + dur, clamped at INT64_MAX (a broken trace's dur may reach it). */
static inline int64_t osc_event_end(const struct osc_event *e)
{
	return osc_sat_add(e->ts, e->dur);
}

#endif
