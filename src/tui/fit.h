/*
 * fit.h - fitting the texts of a column into its width so that different
 * rows stay different.
 *
 * Cutting the middle of every name alike makes rows that differ only there
 * identical on screen: four "void cutlass::Ke…_align1::Params)" kernels whose
 * template arguments differ, call paths of different depths with the same
 * root and leaf. Here a text that fits stays as it is; a call path
 * ("a$$b$$c") keeps its root (cut) and as many of its last elements as fit
 * ("forward…$$aten::linear$$aten::addmm"); other texts lose their middle
 * (osc_text_fit). Then, among the rows drawn together, texts that came out
 * equal although they differ are cut again around the first byte where each
 * differs from the others: a head, an ellipsis, and a window holding that
 * byte ("void cut…gemm_64x64_32x6_nn_a…"). Pure text: no curses.
 */
#ifndef OPSCOPE_TUI_FIT_H
#define OPSCOPE_TUI_FIT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Fit texts[0..n) into width display columns each: out[i] receives a new
 * string (the caller frees it) taking at most width columns, different from
 * every other out[j] whenever texts[i] and texts[j] differ and width allows
 * (at least 8 columns). utf8: as osc_text_fit. Returns whether any text was
 * cut.
 */
bool osc_fit_column(const char *const *texts, size_t n, size_t width, bool utf8, char **out);

/* Byte offset in s after its first `cols` display columns (never inside a character). */
size_t osc_text_skip(const char *s, size_t cols, bool utf8);

/* One text alone, as osc_fit_column fits it (call paths keep their leaf). */
char *osc_fit_text(const char *s, size_t width, bool utf8);

#endif
