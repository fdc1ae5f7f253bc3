/* load.c - open the input, pick a loader by probing, report progress. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "load/load_internal.h"
#include "base/mapguard.h"

#define HEAD_LEN 4096
#define PROGRESS_STEP ((uint64_t)4 << 20)

/* Every loader, in probe order; the first whose probe accepts the input wins. */
static const struct osc_loader *const loaders[] = {
	&osc_loader_chrome,
	&osc_loader_sqlite,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A byte that text does not hold (NUL aside, a few are tolerated). */
static bool odd_byte(unsigned char ch)
{
	return (ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t' && ch != '\f') || ch == 0x7f;
}

bool osc_head_is_binary(const unsigned char *head, size_t len)
{
	size_t odd = 0;

	if (len > 1024)
		len = 1024;
	for (size_t i = 0; i < len; i++) {
		if (!head[i])
			return true;
		odd += odd_byte(head[i]);
	}
	return len && odd * 10 > len;
}

/* Offset of the first byte that made head binary: a NUL, else the first odd byte. */
static size_t first_binary(const unsigned char *head, size_t len)
{
	const unsigned char *nul = memchr(head, 0, len > 1024 ? 1024 : len);
	size_t i = 0;

	if (nul)
		return (size_t)(nul - head);
	while (i < len && !odd_byte(head[i]))
		i++;
	return i;
}

/*
 * A mapped plain file is "read" at once: its progress is what was parsed.
 * Otherwise (gzip, streams) what was read from the file.
 */
static void progress(struct osc_load_ctx *ctx)
{
	bool mapped = ctx->in.map && !ctx->in.codec;
	uint64_t parsed = ctx->parsed < ctx->in.file_size ? ctx->parsed : ctx->in.file_size;
	struct osc_load_progress p = {
		.bytes_read = mapped ? parsed : ctx->in.file_read,
		.bytes_total = ctx->in.file_size,
		.events = ctx->t->nr_events,
		.rows_read = ctx->rows_read,
		.rows_total = ctx->rows_total,
		.elapsed = now() - ctx->start,
	};

	if (ctx->opts->progress)
		ctx->opts->progress(&p, ctx->opts->userdata);
}

enum osc_status osc_load_tick(struct osc_load_ctx *ctx, uint64_t offset)
{
	if (offset < ctx->next_progress)
		return osc_load_step(ctx, offset, false);
	ctx->next_progress = offset + PROGRESS_STEP;
	return osc_load_step(ctx, offset, true);
}

enum osc_status osc_load_step(struct osc_load_ctx *ctx, uint64_t at, bool report)
{
	if (ctx->opts->cancel && *ctx->opts->cancel)
		return osc_load_cancelled(ctx->err, ctx->name, (int64_t)at);
	if (report)
		progress(ctx);
	return OSC_OK;
}

void osc_load_report(struct osc_load_ctx *ctx)
{
	progress(ctx);
}

static bool is_json_scalar(const unsigned char *p, size_t n)
{
	if (!n)
		return false;
	if ((*p >= '0' && *p <= '9') || *p == '-' || *p == '"')
		return true;
	return (n >= 4 && (!memcmp(p, "true", 4) || !memcmp(p, "null", 4))) ||
	       (n >= 5 && !memcmp(p, "false", 5));
}

#ifdef OPSCOPE_HAVE_ZSTD
#define READS "plain, gzip and zstd"
#else
#define READS "plain and gzip"
#endif

/* Containers opscope does not open, by their magic bytes, with how to open them. */
static const struct {
	const char *name, *magic, *tool;
	size_t len;
} foreign[] = {
	{ "xz", "\xfd" "7zXZ\0", "xz -dc", 6 },
	{ "bzip2", "BZh", "bzip2 -dc", 3 },
	{ "lz4", "\x04\x22\x4d\x18", "lz4 -dc", 4 },
	{ "zstd", "\x28\xb5\x2f\xfd", "zstd -dc", 4 }, /* when built without libzstd */
	{ "zip", "PK\x03\x04", "unzip -p", 4 },
	{ "7z", "7z\xbc\xaf\x27\x1c", "7z x -so", 6 },
};

/* No loader took the input: say what it is instead. */
static enum osc_status refuse(struct osc_load_ctx *ctx, const unsigned char *head, size_t n)
{
	size_t i = 0;

	for (size_t f = 0; f < sizeof(foreign) / sizeof(foreign[0]); f++)
		if (n >= foreign[f].len && !memcmp(head, foreign[f].magic, foreign[f].len))
			return osc_error_set(ctx->err, OSC_BINARY, ctx->name, 0, NULL,
					     "%s-compressed data: opscope reads " READS
					     " traces (decompress it: %s FILE | opscope -)",
					     foreign[f].name, foreign[f].tool);

	/* POSIX tar: "ustar" at byte 257 of its first header */
	if (n >= 262 && !memcmp(head + 257, "ustar", 5))
		return osc_error_set(ctx->err, OSC_BINARY, ctx->name, 257, NULL,
				     "a tar archive: opscope reads one trace (list the archive: "
				     "tar -tf FILE; read a member: tar -xOf FILE MEMBER | opscope -)");
	if (osc_head_is_binary(head, n)) {
		size_t at = first_binary(head, n);

		return osc_error_set(ctx->err, OSC_BINARY, ctx->name, (int64_t)at, NULL,
				     "binary data, not a trace (%s)",
				     head[at] ? "control bytes" : "a NUL byte");
	}
	if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
		i = 3;
	while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	if (is_json_scalar(head + i, n - i))
		return osc_error_set(ctx->err, OSC_NOT_TRACE, ctx->name, (int64_t)i, NULL,
				     "a JSON value that is not a trace (expected an array or "
				     "an object with traceEvents)");
	return osc_error_set(ctx->err, OSC_NOT_JSON, ctx->name, (int64_t)i, NULL,
			     "expected '[' or '{'");
}

static bool only_space(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\n' && p[i] != '\r' && p[i] != '\t')
			return false;
	return true;
}

static enum osc_status run(struct osc_load_ctx *ctx)
{
	struct osc_input *in = &ctx->in;
	const unsigned char *head;
	size_t n;
	enum osc_status st;

	while (!in->eof && in->len < HEAD_LEN) {
		st = osc_input_more(in, 0, ctx->name, ctx->err);
		if (st != OSC_OK)
			return st;
	}
	ctx->t->compression = osc_codec_name(in->codec);
	head = (const unsigned char *)in->data;
	n = in->len < HEAD_LEN ? in->len : HEAD_LEN;
	if (in->eof && only_space(head, in->len)) {
		if (in->z_bad)
			return osc_error_set(ctx->err, OSC_GZIP, ctx->name, (int64_t)in->len,
					     NULL, "%s", in->z_msg);
		return osc_error_set(ctx->err, OSC_EMPTY, ctx->name, (int64_t)in->len, NULL,
				     in->len ? "only white space" : "empty file");
	}
	for (size_t i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++)
		if (loaders[i]->probe(head, n))
			return loaders[i]->load(ctx);
	return refuse(ctx, head, n);
}

/*
 * Durations whose sum, or times whose span, leave the int64 range: sums
 * saturate (sat.h); say so once, for the whole trace.
 */
static void check_sums(struct osc_trace *t)
{
	__int128 sum = 0, lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		sum += e->dur;
		lo = e->ts < lo ? e->ts : lo;
		hi = (__int128)e->ts + e->dur > hi ? (__int128)e->ts + e->dur : hi;
	}
	if (sum > INT64_MAX || (t->nr_events && hi - lo > INT64_MAX))
		osc_trace_warn(t, OSC_WARN_HUGE_SUMS, OSC_NO_OFFSET);
}

/*
 * A mapped file that shrank while it was read gave zeros past its new end
 * (mapguard.h): whatever the loader made of them, that is the error.
 */
static enum osc_status check_shrunk(struct osc_load_ctx *ctx, enum osc_status st)
{
	uint64_t size;

	if (!osc_input_shrunk(&ctx->in, &size) && !osc_mapguard_shrunk(ctx->t->args_guard, &size))
		return st;
	return osc_error_set(ctx->err, OSC_IO, ctx->name, (int64_t)size, NULL,
			     "the file shrank from %llu to %llu bytes while it was read "
			     "(is a program writing it?)",
			     (unsigned long long)ctx->in.file_size, (unsigned long long)size);
}

static const struct osc_load_opts no_opts;

uint64_t osc_load_default_max_input(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;

	return mem * 4 > ((uint64_t)1 << 30) ? mem * 4 : (uint64_t)1 << 30;
}

/* The limit of opts on the uncompressed input (input.h's max_len). */
static uint64_t max_len(const struct osc_load_opts *opts)
{
	if (!opts->max_input)
		return osc_load_default_max_input();
	return opts->max_input == UINT64_MAX ? 0 : opts->max_input;
}

/* A pipe or FIFO has been silent for a while: say so (the progress's waiting). */
static void slow(void *arg)
{
	struct osc_load_ctx *ctx = arg;
	struct osc_load_progress p = {
		.bytes_read = ctx->in.file_read,
		.waiting = true,
		.elapsed = now() - ctx->start,
	};

	if (ctx->opts->progress)
		ctx->opts->progress(&p, ctx->opts->userdata);
}

static enum osc_status load(struct osc_load_ctx *ctx, const char *name,
			    const struct osc_load_opts *opts, struct osc_trace *t,
			    struct osc_error *err)
{
	enum osc_status st;

	ctx->name = name;
	ctx->t = t;
	ctx->err = err;
	ctx->opts = opts ? opts : &no_opts;
	ctx->next_progress = PROGRESS_STEP;
	if (err)
		osc_error_clear(err);
	free(t->path);
	t->path = osc_xstrdup(name);
	st = run(ctx);
	st = check_shrunk(ctx, st);
	t->file_bytes = ctx->in.file_read;
	t->input_bytes = ctx->in.base + ctx->in.len;
	ctx->parsed = t->input_bytes;
	if (st == OSC_OK) {
		/* Trailing garbage after the last gzip member (the thread is done). */
		if (ctx->in.z_trailing)
			osc_trace_warn(t, OSC_WARN_TRAILING_COMPRESSED,
				       (int64_t)ctx->in.z_trailing_at);
		if (ctx->in.z_cut)
			osc_trace_warn(t, OSC_WARN_GZIP_CUT, (int64_t)t->input_bytes);
		check_sums(t);
		osc_trace_split_flows(t);
		osc_load_report(ctx);
	}
	osc_input_close(&ctx->in);
	if (st != OSC_OK) {
		osc_trace_release(t);
		osc_trace_init(t);
	}
	return st;
}

enum osc_status osc_load(const char *path, const struct osc_load_opts *opts,
			 struct osc_trace *t, struct osc_error *err)
{
	struct osc_load_ctx ctx;
	struct osc_input_wait wait = { .slow = slow, .arg = &ctx };
	enum osc_status st;

	memset(&ctx, 0, sizeof(ctx));
	ctx.opts = opts ? opts : &no_opts;
	ctx.start = now();
	wait.cancel = ctx.opts->cancel;
	st = osc_input_open(&ctx.in, path, &wait, err);
	if (st != OSC_OK) {
		osc_input_close(&ctx.in);
		return st;
	}
	ctx.in.max_len = max_len(ctx.opts);
	return load(&ctx, path, opts, t, err);
}

enum osc_status osc_load_buffer(const char *name, const void *data, size_t len,
				const struct osc_load_opts *opts, struct osc_trace *t,
				struct osc_error *err)
{
	struct osc_load_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.start = now();
	osc_input_open_buffer(&ctx.in, data, len);
	ctx.in.max_len = max_len(opts ? opts : &no_opts);
	return load(&ctx, name, opts, t, err);
}
