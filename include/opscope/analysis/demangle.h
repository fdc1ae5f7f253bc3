/*
 * demangle.h - how device kernel names are shown: demangled, mangled or short.
 *
 * C++ kernel names (_Z...) are demangled once per distinct name, by
 * libiberty's cplus_demangle (the options c++filt uses by default) or by one
 * external process (`--demangler CMD`, e.g. c++filt) fed every name on its
 * standard input, one per line. The short name drops the return type,
 * template arguments and parameter lists, as nsys's `:base`:
 *   void at::native::vectorized_elementwise_kernel<4, F, A>(int, F, A)
 *   -> at::native::vectorized_elementwise_kernel
 * Names that are not C++ (volta_sgemm_128x64_nn, triton_poi_fused_0, Memcpy
 * HtoD ...) are shown as they are in every style. Only the names of device
 * events are looked at; op names are never touched.
 *
 * Kernels shown under one name are one row (osc_names_key), as nsys stats'
 * `:base` sums over the base name: with short names every instantiation of
 * a template kernel, with demangled ones a name recorded both mangled and
 * demangled.
 */
#ifndef OPSCOPE_DEMANGLE_H
#define OPSCOPE_DEMANGLE_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/base/status.h"
#include "opscope/base/strtab.h"
#include "opscope/model/trace.h"

/* X-macro: name styles with their option names. */
#define OSC_NAME_STYLE_LIST(_)     \
	_(DEMANGLED, "demangled")  \
	_(SHORT, "short")          \
	_(MANGLED, "mangled")

enum osc_name_style {
#define OSC_NAME_STYLE_ENUM(name, text) OSC_NAMES_##name,
	OSC_NAME_STYLE_LIST(OSC_NAME_STYLE_ENUM)
#undef OSC_NAME_STYLE_ENUM
	OSC_NAME_STYLE_COUNT
};

const char *osc_name_style_name(enum osc_name_style s);

struct osc_names {
	enum osc_name_style style; /* what osc_names_get returns */
	struct osc_strtab strs;    /* the demangled and short texts */
	osc_str *full, *base;      /* per trace string id: id in strs, OSC_STR_NONE: as is */
	/* per trace string id: the least id shown as the same text in the
	   demangled (short) style; NULL where every name shows its own text */
	osc_str *key_full, *key_base;
	size_t nr;                 /* trace string ids covered */
};

/* Set up names that show everything as it is (style DEMANGLED, nothing built). */
void osc_names_init(struct osc_names *n);

/*
 * Demangle the name of every device event of t once. cmd NULL: libiberty;
 * else a shell command that reads names on stdin and writes one line per
 * name (c++filt). Errors: OSC_IO (subject "--demangler") when the command
 * cannot run, fails or answers a different number of lines; n is then left
 * showing names as they are. Keep t alive while n is used.
 */
enum osc_status osc_names_build(struct osc_names *n, const struct osc_trace *t, const char *cmd,
				struct osc_error *err);

/*
 * The same for the names of strs that want marks (per id: 0 none, 1 a
 * device event's name, 2 a kernel's, which also gets a short form), e.g.
 * the kernel names a summary file recorded. Keep strs alive while n is used.
 */
enum osc_status osc_names_build_strs(struct osc_names *n, const struct osc_strtab *strs,
				     const uint8_t *want, const char *cmd, struct osc_error *err);
/*
 * n shows t's kernel names in style: built (osc_names_build, with cmd)
 * unless the style is mangled, which needs nothing demangled.
 */
enum osc_status osc_names_in_style(struct osc_names *n, const struct osc_trace *t,
				   enum osc_name_style style, const char *cmd,
				   struct osc_error *err);

/* Text of string id of strs (the table n was built over) as shown in style. */
const char *osc_names_text(const struct osc_names *n, const struct osc_strtab *strs, osc_str id,
			   enum osc_name_style style);
/* Text of trace string id in n's style; n NULL: the name as it is. */
const char *osc_names_get(const struct osc_names *n, const struct osc_trace *t, osc_str id);

/* The key of each string id in n's style (key_full, key_base), NULL where each is its own. */
static inline const osc_str *osc_names_keys(const struct osc_names *n)
{
	if (!n || n->style == OSC_NAMES_MANGLED)
		return NULL;
	return n->style == OSC_NAMES_SHORT ? n->key_base : n->key_full;
}

/*
 * The id kernels named id are keyed by in n's style: the least trace string
 * id shown as the same text (osc_names_get), so that rows keyed by it merge
 * the kernels of one shown name; id itself when n is NULL or the style is
 * mangled. Inline: aggregation asks it once per kernel.
 */
static inline osc_str osc_names_key(const struct osc_names *n, osc_str id)
{
	const osc_str *key = osc_names_keys(n);

	return key && id < n->nr ? key[id] : id;
}

/*
 * The keys n's style gives (osc_names_key), named by a style: mangled where
 * every name is its own key (no two names are shown alike). Rows keyed
 * under two styles of the same keying are the same rows.
 */
static inline enum osc_name_style osc_names_keying(const struct osc_names *n)
{
	return osc_names_keys(n) ? n->style : OSC_NAMES_MANGLED;
}

void osc_names_release(struct osc_names *n);

/* Demangle one name with libiberty into a new string; NULL when it is not a C++ name. */
char *osc_demangle(const char *name);

/*
 * The short form of a demangled C++ name into a new string: no return type,
 * template arguments or parameter lists ("(anonymous namespace)" and
 * operator<, operator<< ... are kept).
 */
char *osc_demangle_base(const char *demangled);

#endif
