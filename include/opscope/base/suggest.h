/*
 * suggest.h - "did you mean": the candidate closest to a mistyped word.
 *
 * Used by the error messages of names with a fixed set of values (commands,
 * options, columns, levels, files in a directory).
 */
#ifndef OPSCOPE_SUGGEST_H
#define OPSCOPE_SUGGEST_H

#include <stddef.h>

/*
 * Optimal string alignment distance of a and b (insertions, deletions,
 * substitutions and swaps of neighbours each cost 1), case-sensitive.
 */
size_t osc_edit_distance(const char *a, const char *b);

/*
 * The candidate of cands[0..n) that word most likely meant: the nearest
 * within a third of word's length in edits (at least 1), else the shortest
 * that starts with word (a name typed without its suffix: 'total' for
 * total_us). NULL if none is close, or word is empty; the first on a tie.
 * NULL entries of cands are skipped.
 */
const char *osc_suggest(const char *word, const char *const *cands, size_t n);

#endif
