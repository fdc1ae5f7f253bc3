/* job.c - a distributed job's inputs loaded into rank summaries (job.h). */
#include "opscope/analysis/job.h"
#include "opscope/analysis/summary_names.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "opscope/analysis/summary_build.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "opscope/base/threads.h"
#include "opscope/load/load.h"
#include "opscope/load/summary_file.h"

/* ---- the inputs ---- */

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* Whether a directory entry's name is a trace or summary file (job.h). */
static bool job_file_name(const char *name)
{
	static const char *const ends[] = { ".json", ".json.gz", ".json.zst", ".sqlite",
					    ".sqlite3", ".csv" };

	if (name[0] == '.')
		return false;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (ends_with(name, ends[i]))
			return true;
	return false;
}

/* Natural order: runs of digits compare as numbers ("rank2" before "rank10"). */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			for (; a < ea; a++, b++)
				if (*a != *b)
					return *a < *b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int natural_order(const void *pa, const void *pb)
{
	int c = natural_cmp(*(char *const *)pa, *(char *const *)pb);

	return c ? c : strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* Append the job files of directory dir, in natural order. */
static enum osc_status expand_dir(const char *dir, char ***paths, size_t *nr, size_t *alloc,
				  struct osc_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *nr;

	if (!d)
		return osc_error_set(err, OSC_IO, dir, OSC_NO_OFFSET, NULL, "%s",
				     strerror(errno));
	while ((e = readdir(d))) {
		char *path;
		struct stat st;

		if (!job_file_name(e->d_name))
			continue;
		path = osc_xasprintf("%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		OSC_GROW(*paths, *nr + 1, *alloc);
		(*paths)[(*nr)++] = path;
	}
	closedir(d);
	if (*nr == first)
		return osc_error_set(err, OSC_EMPTY, dir, OSC_NO_OFFSET, NULL,
				     "no trace or summary file in the directory (names ending "
				     "in .json, .json.gz, .json.zst, .sqlite, .sqlite3 or .csv)");
	qsort(*paths + first, *nr - first, sizeof(**paths), natural_order);
	return OSC_OK;
}

/* OSC_USAGE when two of paths[0 .. n) are the same file (a rank given twice). */
static enum osc_status check_twice(char *const *paths, size_t n, struct osc_error *err)
{
	struct stat *sb = osc_xcalloc(n ? n : 1, sizeof(*sb));
	enum osc_status st = OSC_OK;

	for (size_t i = 0; i < n && st == OSC_OK; i++) {
		if (stat(paths[i], &sb[i]) || !S_ISREG(sb[i].st_mode))
			continue;
		for (size_t k = 0; k < i && st == OSC_OK; k++)
			if (S_ISREG(sb[k].st_mode) && sb[k].st_dev == sb[i].st_dev &&
			    sb[k].st_ino == sb[i].st_ino)
				st = osc_error_set(err, OSC_USAGE, paths[i], OSC_NO_OFFSET, NULL,
						   "given twice (also as %s): one trace per rank",
						   paths[k]);
	}
	free(sb);
	return st;
}

enum osc_status osc_job_expand(const char *const *inputs, size_t n, char ***paths, size_t *nr,
			       struct osc_error *err)
{
	size_t alloc = 0;
	enum osc_status st = OSC_OK;

	*paths = NULL;
	*nr = 0;
	for (size_t i = 0; i < n && st == OSC_OK; i++) {
		struct stat sb;

		if (strcmp(inputs[i], "-") && !stat(inputs[i], &sb) && S_ISDIR(sb.st_mode)) {
			st = expand_dir(inputs[i], paths, nr, &alloc, err);
			continue;
		}
		OSC_GROW(*paths, *nr + 1, alloc);
		(*paths)[(*nr)++] = osc_xstrdup(inputs[i]);
	}
	if (st == OSC_OK)
		st = check_twice(*paths, *nr, err);
	if (st != OSC_OK) {
		for (size_t i = 0; i < *nr; i++)
			free((*paths)[i]);
		free(*paths);
		*paths = NULL;
		*nr = 0;
	}
	return st;
}

/* ---- ranks ---- */

static int by_rank(const void *pa, const void *pb)
{
	const struct osc_summary *a = pa, *b = pb;

	return a->rank.rank < b->rank.rank ? -1 : a->rank.rank > b->rank.rank;
}

enum osc_status osc_job_order(struct osc_summary *s, size_t n, struct osc_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].rank.source == OSC_RANK_NONE || s[i].rank.rank < 0) {
			s[i].rank.source = OSC_RANK_INPUT_ORDER;
			s[i].rank.rank = (int64_t)i;
		}
	qsort(s, n, sizeof(*s), by_rank);
	for (size_t i = 1; i < n; i++)
		if (s[i].rank.rank == s[i - 1].rank.rank)
			return osc_error_set(err, OSC_USAGE, s[i].path, OSC_NO_OFFSET, NULL,
					     "rank %lld (from its %s) is also %s's (from its %s): "
					     "one trace per rank",
					     (long long)s[i].rank.rank,
					     osc_rank_source_name(s[i].rank.source), s[i - 1].path,
					     osc_rank_source_name(s[i - 1].rank.source));
	return OSC_OK;
}

/* ---- loading ---- */

struct loader {
	const char *const *paths;
	size_t n;
	const struct osc_job_opts *o;
	struct osc_summary *out;
	uint64_t *cost;          /* per input: its estimated memory */
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t next, done;       /* the next input to start, inputs done */
	uint64_t in_flight, budget; /* estimated memory of the loads running, and the most */
	size_t running;
	volatile int cancel;     /* set on the first error */
	enum osc_status st;
	struct osc_error err;
};

/* Estimated memory of loading path (job.h's factors), from its size and first bytes. */
static uint64_t load_cost(const char *path)
{
	unsigned char head[16] = { 0 };
	struct stat sb;
	int fd = -1;
	ssize_t got = -1;
	uint64_t size = 0;

	if (!stat(path, &sb) && S_ISREG(sb.st_mode)) { /* a FIFO is opened by its loader only */
		size = (uint64_t)sb.st_size;
		fd = open(path, O_RDONLY);
		got = fd >= 0 ? read(fd, head, sizeof(head)) : -1;
	}
	if (fd >= 0)
		close(fd);
	if (got >= 4 && ((head[0] == 0x1f && head[1] == 0x8b) ||
			 (head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd)))
		return size * 24;
	if (got >= 15 && !memcmp(head, "SQLite format 3", 15))
		return size * 4;
	if (got > 0 && osc_summary_sniff(head, (size_t)got))
		return size;
	return size / 2;
}

/* Half the memory available now (MemAvailable), else half the physical memory. */
static uint64_t default_budget(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (!kb) {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

		kb = pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size / 1024 : 0;
	}
	return (uint64_t)kb * 1024 / 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The runs of t that spec keeps into sel; an error names t's file. */
static enum osc_status keep_runs(const struct osc_trace *t, const struct osc_runs *runs,
				 const char *spec, struct osc_runsel *sel, struct osc_error *err)
{
	struct osc_error inner;
	enum osc_status st = osc_runsel_parse(spec, runs->nr, runs->warmup, sel, &inner);

	if (st != OSC_OK)
		return osc_error_set(err, st, t->path, OSC_NO_OFFSET, "--runs", "%s",
				     inner.message);
	return OSC_OK;
}

/* Load one input into its summary; the trace (if any) is passed to progress, then freed. */
static enum osc_status load_one(struct loader *L, size_t i, struct osc_error *err)
{
	const struct osc_job_opts *o = L->o;
	struct osc_summary *s = &L->out[i];
	struct osc_trace t;
	struct osc_runs runs = { 0 };
	struct osc_runsel sel = { 0 };
	struct osc_names names;
	struct osc_load_opts lo = { .max_input = o->max_input, .cancel = &L->cancel };
	double start = now();
	enum osc_status st;
	bool summary = osc_summary_is_file(L->paths[i]);

	osc_trace_init(&t);
	osc_names_init(&names);
	if (summary) {
		st = osc_summary_read(L->paths[i], s, err);
		if (st == OSC_OK)
			st = osc_summary_restyle(s, o->names, o->demangler, &s->names_kept, err);
	} else {
		st = osc_load(L->paths[i], &lo, &t, err);
		if (st == OSC_OK && o->ops)
			st = osc_trace_select_ops(&t, o->ops, err);
		if (st == OSC_OK)
			st = osc_runs_detect_opts(&t, &o->runs, &runs, err);
		if (st == OSC_OK && o->keep_runs)
			st = keep_runs(&t, &runs, o->keep_runs, &sel, err);
		if (st == OSC_OK)
			st = osc_names_in_style(&names, &t, o->names, o->demangler, err);
		if (st == OSC_OK)
			osc_summary_build(&t, &runs, o->keep_runs ? &sel : NULL, o->categories,
					  &names, o->skip_levels, s);
	}
	if (st == OSC_OK && o->progress) {
		struct osc_job_progress p = { .nr = L->n, .path = L->paths[i], .rank = s,
					      .trace = summary ? NULL : &t,
					      .seconds = now() - start };

		pthread_mutex_lock(&L->lock);
		p.done = ++L->done;
		o->progress(&p, o->userdata);
		pthread_mutex_unlock(&L->lock);
	}
	osc_names_release(&names);
	osc_runsel_release(&sel);
	osc_runs_release(&runs);
	osc_trace_release(&t);
	return st;
}

/* Whether the caller cancelled the job (checked before each input). */
static bool cancelled(const struct osc_job_opts *o)
{
	return o->cancel && *o->cancel;
}

/* A loading thread: take the next input when the memory budget allows, until none is left. */
static void *load_worker(void *arg)
{
	struct loader *L = arg;

	for (;;) {
		size_t i;
		struct osc_error err;
		enum osc_status st;

		pthread_mutex_lock(&L->lock);
		if (cancelled(L->o))
			L->cancel = 1;
		while (L->next < L->n && !L->cancel && L->running > 0 &&
		       L->in_flight + L->cost[L->next] > L->budget)
			pthread_cond_wait(&L->freed, &L->lock);
		if (L->next >= L->n || L->cancel) {
			pthread_mutex_unlock(&L->lock);
			return NULL;
		}
		i = L->next++;
		L->in_flight += L->cost[i];
		L->running++;
		pthread_mutex_unlock(&L->lock);

		osc_error_clear(&err);
		st = load_one(L, i, &err);

		pthread_mutex_lock(&L->lock);
		L->in_flight -= L->cost[i];
		L->running--;
		if (st != OSC_OK && L->st == OSC_OK) {
			L->st = st;
			L->err = err;
			L->cancel = 1;
		}
		pthread_cond_broadcast(&L->freed);
		pthread_mutex_unlock(&L->lock);
	}
}

enum osc_status osc_job_load(const char *const *paths, size_t n, const struct osc_job_opts *o,
			     struct osc_job *out, struct osc_error *err)
{
	struct loader L = { .paths = paths, .n = n, .o = o, .st = OSC_OK };
	size_t nt = osc_threads();
	pthread_t th[OSC_THREADS_MAX];
	size_t started = 0;

	out->ranks = NULL;
	out->nr = 0;
	if (cancelled(o))
		return osc_error_set(err, OSC_CANCELLED, NULL, OSC_NO_OFFSET, NULL, "cancelled");
	L.out = osc_xcalloc(n ? n : 1, sizeof(*L.out));
	L.cost = osc_xcalloc(n ? n : 1, sizeof(*L.cost));
	for (size_t i = 0; i < n; i++) {
		osc_summary_init(&L.out[i]);
		L.cost[i] = load_cost(paths[i]);
	}
	L.budget = o->memory ? o->memory : default_budget();
	osc_error_clear(&L.err);
	pthread_mutex_init(&L.lock, NULL);
	pthread_cond_init(&L.freed, NULL);
	if (nt > n)
		nt = n;
	for (size_t k = 1; k < nt; k++)
		if (!pthread_create(&th[started], NULL, load_worker, &L))
			started++;
	load_worker(&L);
	for (size_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	pthread_cond_destroy(&L.freed);
	pthread_mutex_destroy(&L.lock);
	free(L.cost);
	if (L.st == OSC_OK)
		L.st = osc_job_order(L.out, n, &L.err);
	if (L.st != OSC_OK) {
		for (size_t i = 0; i < n; i++)
			osc_summary_release(&L.out[i]);
		free(L.out);
		*err = L.err;
		return L.st;
	}
	out->ranks = L.out;
	out->nr = n;
	return OSC_OK;
}

void osc_job_release(struct osc_job *j)
{
	for (size_t i = 0; i < j->nr; i++)
		osc_summary_release(&j->ranks[i]);
	free(j->ranks);
	j->ranks = NULL;
	j->nr = 0;
}

/* The next "N" or "N-M" of a --ranks list at *p into [*lo, *hi]; false when malformed. */
static bool next_range(const char **p, int64_t *lo, int64_t *hi)
{
	char *end;
	long long a, b;

	if (!isdigit((unsigned char)**p))
		return false;
	a = strtoll(*p, &end, 10);
	b = a;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return false;
		b = strtoll(end + 1, &end, 10);
	}
	if (b < a || (*end && *end != ','))
		return false;
	*lo = a;
	*hi = b;
	*p = *end ? end + 1 : end;
	return true;
}

/* The index of rank r in j (ranks sorted), or SIZE_MAX. */
static size_t index_of_rank(const struct osc_job *j, int64_t r)
{
	size_t lo = 0, hi = j->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->ranks[mid].rank.rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->nr && j->ranks[lo].rank.rank == r ? lo : SIZE_MAX;
}

enum osc_status osc_job_keep_ranks(struct osc_job *j, const char *list, struct osc_error *err)
{
	uint8_t *keep = osc_xcalloc(j->nr ? j->nr : 1, 1);
	const char *p = list;
	size_t out = 0;

	while (*p) {
		int64_t lo, hi;

		if (!next_range(&p, &lo, &hi)) {
			free(keep);
			return osc_error_set(err, OSC_USAGE, "--ranks", OSC_NO_OFFSET, NULL,
					     "not a list of ranks: '%s' (e.g. 0,3,8-15)", list);
		}
		for (int64_t r = lo; r <= hi; r++) {
			size_t i = index_of_rank(j, r);

			if (i == SIZE_MAX) {
				free(keep);
				return osc_error_set(err, OSC_RANGE, "--ranks", OSC_NO_OFFSET, NULL,
						     "rank %lld is not in the job (%zu ranks, %lld to "
						     "%lld)", (long long)r, j->nr,
						     j->nr ? (long long)j->ranks[0].rank.rank : 0LL,
						     j->nr ? (long long)j->ranks[j->nr - 1].rank.rank
							   : 0LL);
			}
			keep[i] = 1; /* a range wider than the job ends at its first missing rank */
		}
	}
	if (!*list) {
		free(keep);
		return osc_error_set(err, OSC_USAGE, "--ranks", OSC_NO_OFFSET, NULL,
				     "an empty list of ranks");
	}
	for (size_t i = 0; i < j->nr; i++) {
		if (keep[i])
			j->ranks[out++] = j->ranks[i];
		else
			osc_summary_release(&j->ranks[i]);
	}
	j->nr = out;
	free(keep);
	return OSC_OK;
}
