/* alloc.c - allocation wrappers that exit with one line on out-of-memory. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/base/status.h"

static void (*die_hook)(void);
static const char *oom_subject;

void osc_set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

void osc_set_oom_subject(const char *subject)
{
	oom_subject = subject;
}

/* Any thread may get here: the first one prints and exits, without atexit handlers. */
static void out_of_memory(size_t size)
{
	struct osc_error err;
	char line[2048];

	if (die_hook)
		die_hook();
	osc_error_set(&err, OSC_IO, oom_subject, OSC_NO_OFFSET, NULL,
		      "out of memory (allocating %zu bytes)", size);
	osc_error_format(&err, line, sizeof(line));
	fprintf(stderr, "opscope: %s\n", line);
	_exit(2);
}

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* Ask for the whole huge pages inside block p of size bytes (its ends share pages with others). */
static void *advise_huge(void *p, size_t bytes)
{
	uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t to = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);

#ifdef MADV_HUGEPAGE
	if (to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
#endif
	return p;
}

/*
 * From this many bytes on, a block asks for huge pages (advise_huge): such
 * blocks are arrays written whole (events, members, indexes), and 4 KiB
 * pages cost a fault each (an nsys load of 3.4M events: 118k faults, 23k so).
 */
#define HUGE_FROM ((size_t)4 << 20)

/* Ask for the huge pages of block p of size bytes when it is big. */
static void *advise_if_big(void *p, size_t size)
{
	return size >= HUGE_FROM ? advise_huge(p, size) : p;
}

void *osc_xmalloc(size_t size)
{
	void *p;

	/* A big block starts on a huge page: all of it can be taken in them
	   (malloc's would start mid-page, and take up to 2 MiB in 4 KiB pages). */
	if (size >= HUGE_FROM) {
		if (posix_memalign(&p, HUGE_PAGE, size))
			out_of_memory(size);
		return advise_huge(p, size);
	}
	p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *osc_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *osc_xcalloc_big(size_t nmemb, size_t size)
{
	size_t n = nmemb ? nmemb : 1, bytes = n * (size ? size : 1);

	/* written whole anyway: zeroed here, in huge pages from its start (both
	   allocators check the product, which bytes may have wrapped) */
	return bytes >= HUGE_FROM ? memset(osc_xreallocarray(NULL, n, size ? size : 1), 0, bytes)
				  : advise_huge(osc_xcalloc(nmemb, size), bytes);
}

void *osc_xmalloc_big(size_t nmemb, size_t size)
{
	void *p = osc_xreallocarray(NULL, nmemb, size);
	size_t bytes = (nmemb ? nmemb : 1) * (size ? size : 1);

	/* from HUGE_FROM on, osc_xmalloc asked already */
	return bytes >= HUGE_FROM ? p : advise_huge(p, bytes);
}

/* Room from this many bytes on is a mapping of its own (osc_xroom); below, calloc's. */
#define ROOM_MAPPED_FROM ((size_t)1 << 20)

void *osc_xroom(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
	char *p;
	uintptr_t head;

	if (bytes < ROOM_MAPPED_FROM)
		return osc_xcalloc(1, bytes);
	/* mapped a huge page larger, then trimmed to start on one */
	p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED)
		out_of_memory(bytes);
	head = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_PAGE - head);
	return advise_huge(p + head, bytes);
}

void osc_room_free(void *p, size_t bytes)
{
	if (bytes < ROOM_MAPPED_FROM)
		free(p);
	else if (p)
		munmap(p, bytes);
}

void osc_give_back(void *base, size_t size, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)base + from * size + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)base + to * size) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void *osc_xrealloc(void *ptr, size_t size)
{
	void *p;

	if (!ptr)
		return osc_xmalloc(size);
	p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return advise_if_big(p, size);
}

void *osc_xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	return osc_xrealloc(ptr, nmemb * size);
}

char *osc_xstrdup(const char *s)
{
	return osc_xstrndup(s, strlen(s));
}

char *osc_xstrndup(const char *s, size_t n)
{
	char *p = osc_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *osc_xvasprintf(const char *fmt, va_list ap)
{
	char small[256];
	va_list again;
	int n;
	char *p;

	/* Format into a stack buffer first: most strings fit, and gcc's
	   sanitizer builds reject vsnprintf(NULL, 0, ...). */
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(small)) {
		va_end(again);
		return osc_xstrndup(small, (size_t)n);
	}
	p = osc_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	return p;
}

char *osc_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = osc_xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
