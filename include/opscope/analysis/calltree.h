/*
 * calltree.h - the host call tree: per-thread nesting of host events by time
 * containment, and the merged tree of identical call paths.
 *
 * The instance tree (struct osc_calltree) holds one node per selected host
 * event. Per (pid, tid), events are taken in model order (ts ascending, dur
 * descending, file order) with a stack of open nodes:
 * - an event nests under the innermost open node whose window [ts, ts+dur)
 *   holds its start and whose end is not before its own end;
 * - an event that starts inside an open node but ends after it is a partial
 *   overlap: it is not nested there (counted in nr_overlaps); it nests under
 *   the innermost node that holds it whole, and the nodes it overlaps are
 *   closed for later events;
 * - a zero-duration node holds nothing (its window is empty); a zero-duration
 *   event at the very end of a node is not inside it (half-open windows);
 * - equal windows nest in model order: the first in the file is the parent;
 * - legacy PyTorch traces (OSC_FORMAT_PYTORCH_LEGACY) round start and
 *   duration to µs separately, so a child can end up to 1 µs after its
 *   parent: there an event that ends at most 1000 ns after the node it
 *   starts in nests in it (no overlap), and counts as ending with that node
 *   for the events after it, so the slack never adds up down a path. Other
 *   formats have no slack.
 * O(N) after the model's sort, plus O(N) for the per-thread index.
 *
 * Self time (exclusive time): each instant of a thread belongs to its
 * innermost active node, the last in model order of the nodes whose window
 * holds it. With proper nesting that is dur minus the union of the
 * children's windows; where windows overlap partially, the later node takes
 * the overlap. So the self times of a thread add up exactly to the union of
 * its nodes' windows (its busy time), and never count an instant twice.
 *
 * Nodes are stored in model order, so a parent's index is below its
 * children's and a reverse walk visits children before parents.
 *
 * The merged tree (struct osc_mtree) merges instances with identical call
 * paths (names from the root), across instances and runs, like uftrace's
 * graph: count, host total and self, device and launch time from a
 * correlation (correlate.h), both for the node itself and its subtree.
 */
#ifndef OPSCOPE_CALLTREE_H
#define OPSCOPE_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/demangle.h"
#include "opscope/analysis/columns.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "opscope/base/bits.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* ---- category selections ---- */

/*
 * A set of events chosen by category names (the cat field as written), or,
 * when no names are given, by kind (a bitmask of 1 << enum osc_kind), plus
 * the events an optional mask adds. Only complete (X or B/E) events are ever
 * selected, and never a run marker (ProfilerStep#N is a window, not an op)
 * by its category name.
 */
struct osc_catsel {
	osc_str *cats;   /* interned category names; names absent from the trace are dropped */
	size_t nr;       /* 0: select by kinds */
	uint32_t kinds;  /* used when nr == 0 */
	char *spec;      /* the names as given (comma-separated), or NULL for the kinds */
	uint8_t *also;   /* NULL, or per event: 1 selects it too (owned; osc_host_analysis) */
};

#define OSC_KIND_BIT(k) (1u << OSC_KIND_##k)
/* Defaults: host ops (cpu_op, Operator, ORT nodes), runtime calls, device work. */
#define OSC_CATSEL_HOST_DEFAULT OSC_KIND_BIT(HOST_OP)
#define OSC_CATSEL_LAUNCH_DEFAULT OSC_KIND_BIT(RUNTIME)
#define OSC_CATSEL_DEVICE_DEFAULT \
	(OSC_KIND_BIT(KERNEL) | OSC_KIND_BIT(MEMCPY) | OSC_KIND_BIT(MEMSET))

/*
 * Set up sel from spec, comma-separated category names ("cpu_op,python_function"),
 * or from kinds when spec is NULL. Errors: OSC_USAGE (an empty name) with
 * subject `what` (the option name).
 */
enum osc_status osc_catsel_parse(struct osc_catsel *sel, const struct osc_trace *t,
				 const char *spec, uint32_t kinds, const char *what,
				 struct osc_error *err);
void osc_catsel_release(struct osc_catsel *sel);

/* True when event ev is selected (complete, and in a listed category or kind). */
bool osc_catsel_has(const struct osc_catsel *sel, const struct osc_event *ev);

/* The same for event i of t, the mask (also) included. */
static inline bool osc_catsel_has_event(const struct osc_catsel *sel, const struct osc_trace *t,
					uint32_t i)
{
	return osc_catsel_has(sel, &t->events[i]) ||
	       (sel->also && sel->also[i] && t->events[i].ph == OSC_PH_COMPLETE);
}

/* Description of a selection, e.g. "cpu_op,python_function" or "kind op". */
const char *osc_catsel_describe(const struct osc_catsel *sel, char *buf, size_t size);

/* ---- the instance tree ---- */

struct osc_tree_node {
	uint32_t event;        /* index into trace->events */
	uint32_t parent;       /* node index, OSC_NONE for a root */
	uint32_t first_child;  /* OSC_NONE if none; children in ts order */
	uint32_t next_sibling; /* OSC_NONE if none */
	uint32_t depth;        /* 0 for a root */
	osc_str name;          /* the event's, so walks need not read the event table */
	int64_t dur;           /* the event's, ns */
	int64_t self;          /* exclusive time, ns: see "self time" above */
};

struct osc_calltree {
	struct osc_tree_node *nodes; /* in model order */
	size_t nr;
	uint32_t *node_of;     /* per event: its node, or OSC_NONE */
	uint32_t *by_thread;   /* node indices grouped by thread, ts order in a group */
	size_t *thread_first;  /* per thread: start in by_thread (nr_threads + 1 entries) */
	size_t nr_threads;
	uint64_t nr_overlaps;  /* events that overlapped a node partially */
	uint64_t nr_roots;
	uint32_t max_depth;
};

/* Build the instance tree of the events of t selected by host. */
void osc_calltree_build(const struct osc_trace *t, const struct osc_catsel *host,
			struct osc_calltree *out);

/* Build tree again for another selection, in the memory it has (its old
   nodes are gone; a rebuild touches few fresh pages). */
void osc_calltree_rebuild(const struct osc_trace *t, const struct osc_catsel *host,
			  struct osc_calltree *tree);
void osc_calltree_release(struct osc_calltree *c);

/*
 * The innermost node of thread `thread` whose window holds time ts
 * (ts <= x < ts + dur), or OSC_NONE. O(log N + depth).
 */
uint32_t osc_calltree_find(const struct osc_calltree *c, const struct osc_trace *t,
			   uint32_t thread, int64_t ts);

/*
 * osc_calltree_find for a pass whose times never go back on a thread (the
 * events in model order): a cursor per thread steps forward instead of
 * bisecting, O(N) for the whole pass. A time before the thread's last one
 * is bisected, so any order gives the same answers.
 */
struct osc_calltree_walk {
	size_t *next; /* per thread: in by_thread, its first node after the last time asked */
};

void osc_calltree_walk_init(struct osc_calltree_walk *w, const struct osc_calltree *c);
uint32_t osc_calltree_walk_find(struct osc_calltree_walk *w, const struct osc_calltree *c,
				const struct osc_trace *t, uint32_t thread, int64_t ts);
void osc_calltree_walk_release(struct osc_calltree_walk *w);

/* ---- the merged tree ---- */

struct osc_correlation;
struct osc_tree_index;

struct osc_mnode {
	osc_str name;          /* "" for the synthetic root of unattributed work */
	uint32_t parent;       /* OSC_NONE for a root */
	uint32_t first_child, next_sibling; /* children (and roots) in order of first
					       appearance; the synthetic root comes last */
	uint32_t depth;
	uint64_t count;        /* instances merged */
	int64_t host, self;    /* sum of instance durations and self times, ns */
	int64_t host_min, host_max;
	int64_t dev, dev_total;       /* device time of its own kernels / of its subtree */
	int64_t launch, launch_total; /* time of its own runtime calls / of its subtree */
	int64_t launch_work;   /* of launch: the calls that started device work */
	uint64_t kernels, kernels_total;   /* device events, own / subtree */
	uint64_t launches, launches_total; /* runtime calls, own / subtree */
	int64_t delay_sum, queue_sum; /* over own device events with a launch, ns */
	uint64_t nr_delay;     /* device events counted in delay_sum / queue_sum */
	uint32_t first_inst;   /* an instance node (earliest), OSC_NONE for the synthetic root */
};

struct osc_mtree {
	struct osc_mnode *nodes; /* parents before children */
	size_t nr;
	uint32_t *m_of;        /* per instance node (per marked one, in model order, when
				  `marked`): merged node, OSC_NONE if not selected;
				  read it with osc_mtree_of */
	uint64_t *marked;      /* a subtree's build: its instance nodes (a bitmap),
				  else NULL */
	uint32_t *marked_before; /* per word of marked: the marked nodes before it */
	uint32_t *dev;         /* correlation device-link indices, grouped by merged node */
	uint32_t *dev_first;   /* per merged node: start in dev (nr + 1 entries) */
	uint32_t *launch;      /* correlation launch-link indices, grouped by merged node */
	uint32_t *launch_first; /* per merged node: start in launch (nr + 1 entries) */
	uint32_t first_root;   /* roots are siblings too; OSC_NONE when empty */
	uint32_t unattributed; /* synthetic root holding device work without a host
				  op, OSC_NONE when there is none */
	int64_t host_total;    /* sum of root host times, ns */
};

/* The merged node that instance node n of the tree stands for; OSC_NONE when
   it is outside the selected runs or the subtree. */
static inline uint32_t osc_mtree_of(const struct osc_mtree *m, uint32_t n)
{
	if (!m->marked)
		return m->m_of[n];
	if (!osc_bit(m->marked, n))
		return OSC_NONE;
	return m->m_of[osc_bits_rank(m->marked, m->marked_before, n)];
}

/*
 * Merge the instance tree c (with the correlation corr of the same trace and
 * tree) over the selected runs (sel NULL: every event) into out. A host node
 * outside the selection is transparent: its selected descendants merge
 * under its nearest selected ancestor. Device work and runtime calls follow
 * their host node; those without one form the synthetic root (when selected).
 * With root set (not OSC_STR_NONE), only the subtrees of the outermost
 * instances named root are merged, those instances as the roots (the merged
 * subtree of one op, wherever it is called from); nothing is unattributed.
 */
void osc_mtree_build(const struct osc_trace *t, const struct osc_calltree *c,
		     const struct osc_correlation *corr, const struct osc_runs *runs,
		     const struct osc_runsel *sel, osc_str root, struct osc_mtree *out);

/*
 * The merged subtrees of the outermost instance nodes set in roots (a
 * bitmap over c's nodes, bits.h), those instances as the roots: what
 * osc_mtree_build gives with root set when roots are the nodes named root,
 * for any set of calls (T on a table row: every call of the row, whatever
 * its name). It reads only the nodes under roots and their links through x
 * (tree_index.h, built from c and corr), at a cost of the subtrees' size,
 * not the trace's; m_of holds its marked nodes only.
 */
void osc_mtree_build_subtree(const struct osc_trace *t, const struct osc_calltree *c,
			     const struct osc_correlation *corr, const struct osc_tree_index *x,
			     const struct osc_runs *runs, const struct osc_runsel *sel,
			     const uint64_t *roots, struct osc_mtree *out);

/* Set in roots (a bitmap over c's nodes) the node of each of the n events
   calls that has one (host ops; other events are skipped). */
void osc_calltree_mark_calls(const struct osc_calltree *c, const uint32_t *calls, size_t n,
			     uint64_t *roots);

/*
 * Set in roots (a bitmap over c's nodes) the nodes whose events are in the
 * selected runs (sel NULL: every event) and pass filter f by name or op key
 * (filter.h: the calls of an op, an ORT op type's too); returns how many.
 */
size_t osc_calltree_mark_matching(const struct osc_trace *t, const struct osc_calltree *c,
				  const struct osc_runs *runs, const struct osc_runsel *sel,
				  const struct osc_filter *f, uint64_t *roots);
void osc_mtree_release(struct osc_mtree *m);

/* Name of a merged node ("<unattributed>" for the synthetic root). */
const char *osc_mnode_name(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n);

/* Write the $$-joined path of node n into buf (truncated to size); returns buf. */
char *osc_mtree_path(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n,
		     char *buf, size_t size);
/* The same, returning the whole path's length (size or more: it was cut). */
size_t osc_mtree_path_text(const struct osc_mtree *m, const struct osc_trace *t, uint32_t n,
			   char *buf, size_t size);

/*
 * Nodes to show: keep[n] = 1 for nodes at depth [min_depth, max_depth]
 * (max_depth < 0: no bound) that are on a path through a node passing the
 * filter (its ancestors, itself and its descendants); f NULL or empty keeps
 * every node. keep has m->nr entries.
 */
void osc_mtree_keep(const struct osc_mtree *m, const struct osc_trace *t,
		    const struct osc_filter *f, int min_depth, int max_depth, uint8_t *keep);

/*
 * Preorder (parents before children, children in order) of the kept nodes
 * into order (m->nr entries); returns how many.
 */
size_t osc_mtree_preorder(const struct osc_mtree *m, const uint8_t *keep, uint32_t *order);

/*
 * The node after n in a preorder walk (parents before children, children in
 * order) of the subtree of root, or of the whole tree when root is OSC_NONE:
 * n's first child when down, else the next sibling of n or of its nearest
 * ancestor within the walk; OSC_NONE when the walk is over.
 */
uint32_t osc_mtree_next(const struct osc_mtree *m, uint32_t n, bool down, uint32_t root);

/*
 * Every node of m into kids (m->nr entries), grouped by parent: node p's
 * children from kids[kid_first[p]], the roots from kids[kid_first[m->nr]]
 * (kid_first: m->nr + 2 entries, as the children counted give them). Each
 * group is ordered by key[node] (m->nr entries), descending with desc, ties
 * by node (key NULL: by node alone); the unattributed root comes last of the
 * roots. O(m->nr): a
 * stable radix sort, where a comparison sort of a million siblings takes a
 * quarter of a second.
 */
void osc_mtree_order(const struct osc_mtree *m, const int64_t *key, bool desc,
		     const size_t *kid_first, uint32_t *kids);

/* last[n] = 1 when no kept node follows n among its siblings (keep NULL: all kept). */
void osc_mtree_last(const struct osc_mtree *m, const uint8_t *keep, uint8_t *last);

/*
 * The tree guide drawn before node n's name, for a tree shown from depth
 * `from` on: one 3-column cell per level ("│  ", "├─ ", "└─ " in UTF-8, else
 * "|  ", "|- ", "`- "). Returns the guide's length in bytes.
 */
size_t osc_mtree_guide(const struct osc_mtree *m, const uint8_t *last, uint32_t n,
		       uint32_t from, bool utf8, char *buf, size_t size);

/* The child of n with the largest host time (ties: the first), or OSC_NONE. */
uint32_t osc_mtree_longest_child(const struct osc_mtree *m, uint32_t n);

/* ---- the merged tree as a table (CLI tree, CSV/JSON export, TUI) ---- */

/*
 * X-macro: the columns, with report's names and microseconds (a measure
 * named as report names the same measure: total_us inclusive, self_us,
 * device_us of the op's own kernels, device_total_us with its subtree's,
 * kernels a count), and the seed tool profile_parser_main's names in
 * milliseconds (--legacy-columns). The first seven are the seed's, with the
 * same meaning: values of a node include its subtree (a parent's window holds
 * its children's launches), and the lists merge entries by name
 * ("name xCOUNT (TOTAL us)", largest total first).
 */
#define OSC_TREE_COL_LIST(_)                                                              \
	_(NAME, "name", "name", 24, LEFT, false)                                          \
	_(HOST, "total_us", "host duration (ms)", 10, RIGHT, true)                         \
	_(DEVICE, "device_total_us", "device duration (ms)", 10, RIGHT, true)             \
	_(LAUNCH, "launch_total_us", "cuda launch duration (ms)", 10, RIGHT, true)        \
	_(RUNTIME, "cuda_runtime", "cuda_runtime", 12, LEFT, false)                       \
	_(KERNELS, "kernel_list", "kernels", 12, LEFT, false)                             \
	_(KERNEL_INFOS, "kernel_infos", "kernel infos", 12, LEFT, false)                  \
	_(COUNT, "count", "count", 5, RIGHT, true)                                        \
	_(SELF, "self_us", "self (ms)", 9, RIGHT, true)                                   \
	_(DEVICE_SELF, "device_us", "device self (ms)", 9, RIGHT, true)                   \
	_(KERNEL_COUNT, "kernels", "kernel count", 6, RIGHT, true)                        \
	_(DELAY, "launch_delay_mean_us", "mean launch delay (ms)", 9, RIGHT, true)        \
	_(QUEUE, "queue_mean_us", "mean queue (ms)", 9, RIGHT, true)

enum osc_tree_col {
#define OSC_TREE_COL_ENUM(id, title, legacy, width, align, numeric) OSC_TREE_COL_##id,
	OSC_TREE_COL_LIST(OSC_TREE_COL_ENUM)
#undef OSC_TREE_COL_ENUM
	OSC_TREE_COL_NR
};

struct osc_tree_agg;

/* Scratch space of the long cells; zero it before use, free with osc_tree_scratch_release. */
struct osc_tree_scratch {
	char *text;          /* the last long cell */
	size_t alloc;
	struct osc_tree_agg *agg; /* per-name sums of the list being written */
	size_t agg_alloc;
	uint32_t *slot_of;   /* string id -> agg slot, OSC_NONE when unused */
	size_t nr_strs;
	uint32_t *chain;     /* a path's nodes, innermost first */
	size_t chain_alloc;
};
void osc_tree_scratch_release(struct osc_tree_scratch *s);

struct osc_tree_table_ctx {
	const struct osc_trace *trace;
	const struct osc_mtree *tree;
	const struct osc_correlation *corr;
	const uint32_t *rows;          /* merged nodes in row order */
	size_t nr_rows;
	bool paths;                    /* name column: $$-joined path (else the name) */
	int decimals;                  /* ms decimals: 6 (exact ns) for CSV/JSON, 3 for tables */
	bool us;                       /* times in us with 3 decimals (exact ns), else ms */
	struct osc_tree_scratch *scratch;
	const struct osc_names *names; /* kernel names in the lists, NULL: as in the trace */
};

/* All the columns, in order; *nr receives the count. */
/* (legacy: with profile_parser_main's titles, else with report's.) */
const struct osc_column *osc_tree_columns(bool legacy, size_t *nr);

/*
 * Cell (row, col) of the table: into buf, or, for the long list cells, a
 * string in ctx->scratch valid until the next call. Returns the text.
 */
const char *osc_tree_cell(const struct osc_tree_table_ctx *ctx, size_t row,
			  enum osc_tree_col col, char *buf, size_t size);

/* Format ns as ms with `decimals` (3 or 6) digits, rounded half away from zero. */
void osc_format_ms(int64_t ns, int decimals, char *buf, size_t size);

#endif
