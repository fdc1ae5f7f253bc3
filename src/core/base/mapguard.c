/*
 * mapguard.c - a SIGBUS handler that turns a read past the end of a shrunk,
 * mapped file into zeros and a note, for the mappings it watches.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "base/mapguard.h"

#define SLOTS 64

struct osc_mapguard {
	uintptr_t start;     /* the mapping */
	size_t len;
	int fd;              /* the file (our duplicate), -1 if none */
	int slot;            /* in slots[], -1 when none was free */
	struct stat st;      /* the file when the watch began */
	atomic_bool faulted; /* a read past the file's end was caught */
};

/* Read by the handler on any thread: a watch is published here once complete. */
static _Atomic(struct osc_mapguard *) slots[SLOTS];
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

/*
 * Not ours: hand the signal to the handler that was there before. A fault
 * re-executes the read once the default action is back; a sent signal is
 * raised again.
 */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, si, uc);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		sigaction(sig, &previous, NULL);
		if (si->si_code <= 0)
			raise(sig);
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	for (int i = 0; i < SLOTS; i++) {
		struct osc_mapguard *g = atomic_load(&slots[i]);

		if (!g || a < g->start || a - g->start >= g->len)
			continue;
		/* mmap is a plain system call on Linux, safe here in practice. */
		mmap((void *)g->start, g->len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
		atomic_store(&g->faulted, true);
		return;
	}
	pass_on(sig, si, uc);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, &previous);
}

struct osc_mapguard *osc_mapguard_watch(const void *map, size_t len, int fd)
{
	struct osc_mapguard *g = osc_xcalloc(1, sizeof(*g));

	g->start = (uintptr_t)map;
	g->len = len;
	g->slot = -1;
	g->fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (g->fd < 0 || fstat(g->fd, &g->st))
		memset(&g->st, 0, sizeof(g->st));
	atomic_init(&g->faulted, false);
	pthread_once(&installed, install);
	for (int i = 0; i < SLOTS; i++) {
		struct osc_mapguard *none = NULL;

		if (atomic_compare_exchange_strong(&slots[i], &none, g)) {
			g->slot = i;
			break;
		}
	}
	return g;
}

/* The file now; false when it cannot be looked at. */
static bool file_now(const struct osc_mapguard *g, struct stat *st)
{
	return g->fd >= 0 && !fstat(g->fd, st);
}

bool osc_mapguard_shrunk(const struct osc_mapguard *g, uint64_t *size)
{
	struct stat st;
	bool now;

	if (!g)
		return false;
	now = file_now(g, &st);
	if (size)
		*size = now ? (uint64_t)st.st_size : 0;
	return atomic_load(&g->faulted) || (now && (uint64_t)st.st_size < g->len);
}

bool osc_mapguard_changed(const struct osc_mapguard *g)
{
	struct stat st;

	if (!g)
		return false;
	if (osc_mapguard_shrunk(g, NULL))
		return true;
	return file_now(g, &st) &&
	       (st.st_size != g->st.st_size || st.st_mtim.tv_sec != g->st.st_mtim.tv_sec ||
		st.st_mtim.tv_nsec != g->st.st_mtim.tv_nsec);
}

bool osc_mapguard_faulted(const struct osc_mapguard *g)
{
	return g && atomic_load(&g->faulted);
}

void osc_mapguard_free(struct osc_mapguard *g)
{
	if (!g)
		return;
	if (g->slot >= 0)
		atomic_store(&slots[g->slot], NULL);
	if (g->fd >= 0)
		close(g->fd);
	free(g);
}
