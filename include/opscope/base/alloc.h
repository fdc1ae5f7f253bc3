/*
 * alloc.h - allocation that never returns NULL.
 *
 * Out of memory is not an input error, but the input is usually why (a
 * trace too big for the machine): these wrappers call the die hook (the TUI
 * uses it to restore the terminal), print one line naming the input being
 * worked on, "opscope: FILE: out of memory (allocating N bytes)", and exit
 * with status 2 (no abort, no core dump). This is the one place the core
 * prints and exits.
 */
#ifndef OPSCOPE_ALLOC_H
#define OPSCOPE_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Set a function called once before exiting on out-of-memory (NULL: none). */
void osc_set_die_hook(void (*hook)(void));

/*
 * Name the input the out-of-memory line names (NULL: none); the string must
 * stay valid while it is set. Front ends set it to the trace they load.
 */
void osc_set_oom_subject(const char *subject);

/*
 * malloc/calloc/realloc/strdup that abort on failure; size 0 is allowed.
 * A block malloc'd or realloc'd from 4 MiB on asks for huge pages, as
 * osc_xmalloc_big does (it is written whole, as such arrays are); a new
 * one starts on a huge page, so that all of it can be taken in them.
 */
void *osc_xmalloc(size_t size);
void *osc_xcalloc(size_t nmemb, size_t size);
void *osc_xrealloc(void *ptr, size_t size);
/* realloc for nmemb * size with overflow check. */
void *osc_xreallocarray(void *ptr, size_t nmemb, size_t size);
/*
 * osc_xcalloc for a big table that is about to be written whole (an
 * aggregate's million rows): where the kernel has transparent huge pages
 * for regions that ask (madvise), its whole 2 MiB pages are asked for, one
 * page fault each instead of 512. Small tables are plain osc_xcalloc.
 */
void *osc_xcalloc_big(size_t nmemb, size_t size);
/* The same, not zeroed: for a table whose every element is written before it is read. */
void *osc_xmalloc_big(size_t nmemb, size_t size);
/*
 * `bytes` zero bytes of room of which only part may be used (a bound known
 * ahead): from 1 MiB on, a mapping of its own, which leaves the heap as it
 * was and whose pages are taken when first written, in whole huge pages
 * where the system gives them. Give it back with osc_room_free(p, bytes).
 */
void *osc_xroom(size_t bytes);
void osc_room_free(void *p, size_t bytes);
/*
 * Give the whole pages of elements [from, to) of array base (elements of
 * size bytes) back to the system: a table read once, front to back, whose
 * read part then costs no memory while the rest is read. The elements read
 * as zeros after; the array is freed as usual.
 */
void osc_give_back(void *base, size_t size, size_t from, size_t to);
char *osc_xstrdup(const char *s);
char *osc_xstrndup(const char *s, size_t n);

/* printf into a new string (osc_xvasprintf: from a va_list, which it leaves to the caller). */
char *osc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *osc_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * Make room for at least `need` elements in array `ptr` whose capacity is
 * `alloc` (both lvalues); grows geometrically (git's ALLOC_GROW).
 */
#define OSC_GROW(ptr, need, alloc)                                              \
	do {                                                                    \
		if ((size_t)(need) > (size_t)(alloc)) {                         \
			size_t osc_grow_n = (alloc) ? (size_t)(alloc) * 3 / 2 : 16; \
			if (osc_grow_n < (size_t)(need))                        \
				osc_grow_n = (size_t)(need);                    \
			(ptr) = osc_xreallocarray((ptr), osc_grow_n, sizeof(*(ptr))); \
			(alloc) = osc_grow_n;                                   \
		}                                                               \
	} while (0)

#endif
