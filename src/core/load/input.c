/*
 * input.c - mapped files, and gzip, zstd or standard input decompressed
 * (copied) into anonymous memory (else streamed through a buffer), as one
 * byte window.
 */
#define _GNU_SOURCE /* mremap */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef OPSCOPE_HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif
#ifdef OPSCOPE_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"
#include "load/input.h"
#include "base/mapguard.h"

#define CHUNK ((size_t)4 << 20)     /* streaming window growth step */
#define SPOOL_MAP_MIN ((size_t)256 << 20) /* least reservation of the spool (address space) */
#define SPOOL_RELEASE_STEP ((size_t)32 << 20) /* spool given back in steps of this */
#define SPOOL_RATIO 16               /* spool reserved per compressed byte of a file */
#define READ_CHUNK ((size_t)1 << 20) /* compressed bytes per read() */
#define READ_BACK 8                  /* bytes of the previous read kept before the next */
#define GZ_BLOCK ((size_t)2 << 20)   /* decompressed bytes per hand-over (publication) */
#define POLL_MS 100                  /* how often a wait for a pipe looks at cancel */
#define SLOW_MS 1000                 /* a pipe silent this long is said to be slow */

/*
 * gzip and zstd are decompressed on their own thread (a plain stream is read
 * there, in->reader: the same, without a decoder). With a spool (anonymous
 * memory, the "spool" fields of the input), the thread decompresses straight
 * into it, a block at a time, and publishes how many bytes are there: the
 * window grows over them without a copy or a hand-over, so decompression runs
 * ahead of parsing and the events left when it ends are parsed on all cores.
 * When the reservation is full the thread asks for room (want_room) and waits
 * for the parser's next osc_input_more or osc_input_poll, which moves it
 * (mremap). Without a spool (a buffer input, or no memory could be reserved)
 * blocks are handed over one at a time, double buffered; so are the rest of
 * them when the spool cannot grow (past half the memory, where a file on a
 * bigger disk used to take it: no_room). The thread owns zs, isal, zd, the
 * z_* fields and z_read while it runs; the lock orders everything it
 * publishes.
 */
struct gz_block {
	char *p;
	size_t len;
	uint64_t file_read;
	bool last;
	enum osc_status st;
};

struct gz_pipe {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct gz_block blk[2];
	unsigned head, nfull; /* next block to read, blocks ready */
	char *mem;            /* the spool as the thread sees it (moved under the lock) */
	size_t cap;           /* its reserved bytes */
	bool want_room;       /* the thread waits for a larger spool */
	bool no_room;         /* it will not come: hand blocks over instead */
	size_t spooled;       /* bytes decompressed into the spool */
	uint64_t spooled_read; /* compressed bytes read for them */
	bool spool_end;       /* the stream ended with every byte spooled */
	enum osc_status spool_st; /* and how */
	bool stop;
	const char *subject;
	struct osc_error err;
};

static bool is_gzip(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/*
 * A zstd frame (RFC 8878: magic 0xFD2FB528, little endian) or a skippable
 * frame (0x184D2A50 to 0x184D2A5F: pzstd starts each frame with one), when
 * zstd is built in.
 */
static bool is_zstd(const unsigned char *p, size_t n)
{
#ifdef OPSCOPE_HAVE_ZSTD
	return n >= 4 && ((p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) ||
			  ((p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18));
#else
	(void)p;
	(void)n;
	return false;
#endif
}

/* The codec whose magic p starts with; NONE for plain (or unknown) bytes. */
static enum osc_codec sniff(const unsigned char *p, size_t n)
{
	return is_gzip(p, n) ? OSC_CODEC_GZIP : is_zstd(p, n) ? OSC_CODEC_ZSTD : OSC_CODEC_NONE;
}

/* Whether p starts another member (frame) of the input's codec. */
static bool is_member(const struct osc_input *in, const unsigned char *p, size_t n)
{
	return in->codec == OSC_CODEC_ZSTD ? is_zstd(p, n) : is_gzip(p, n);
}

const char *osc_codec_name(enum osc_codec c)
{
	return c == OSC_CODEC_GZIP ? "gzip" : c == OSC_CODEC_ZSTD ? "zstd" : NULL;
}

static void init_common(struct osc_input *in)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

/* ---- the spool: anonymous memory, reserved large, grown by mremap ------- */

/*
 * Reserve the spool: at least hint bytes of address space (MAP_NORESERVE:
 * pages are taken as bytes land in them). Without it the window streams.
 */
static void spool_open(struct osc_input *in, size_t hint)
{
	size_t cap = hint > SPOOL_MAP_MIN ? hint : SPOOL_MAP_MIN;
	void *map = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (map == MAP_FAILED)
		return;
#ifdef MADV_HUGEPAGE
	/* Fewer page faults for a window written once from end to end. */
	madvise(map, cap, MADV_HUGEPAGE);
#endif
	in->spool = map;
	in->spool_cap = cap;
	in->data = map;
	in->stable = true;
}

/* The most the spool grows to: half the memory (at least 1 GB). */
static size_t spool_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	size_t half = pages > 0 && size > 0 ? (size_t)pages / 2 * (size_t)size : 0;

	return half > ((size_t)1 << 30) ? half : (size_t)1 << 30;
}

/*
 * Make the spool hold at least need bytes; it may move (the window follows).
 * False when it cannot (spool_limit, or no address space left).
 */
static bool spool_grow(struct osc_input *in, size_t need)
{
	size_t cap = in->spool_cap;
	void *map;

	while (cap < need)
		cap *= 2;
	if (cap > spool_limit())
		return false;
	map = mremap(in->spool, in->spool_cap, cap, MREMAP_MAYMOVE);
	if (map == MAP_FAILED)
		return false;
#ifdef MADV_HUGEPAGE
	madvise((char *)map + in->spool_cap, cap - in->spool_cap, MADV_HUGEPAGE);
#endif
	in->spool = map;
	in->spool_cap = cap;
	in->data = in->spool + in->base;
	return true;
}

/*
 * The spool cannot take more: the window goes on in a buffer. What was
 * spooled stays until the input is closed.
 */
static void spool_give_up(struct osc_input *in)
{
	in->stable = false;
	in->buf_alloc = in->len + CHUNK;
	in->buf = osc_xmalloc(in->buf_alloc);
	memcpy(in->buf, in->data, in->len);
	in->data = in->buf;
}

/* Append n uncompressed bytes to the window (the spool or the buffer). */
static void window_append(struct osc_input *in, const char *p, size_t n)
{
	if (osc_input_spooled(in)) {
		if (in->spool_len + n <= in->spool_cap || spool_grow(in, in->spool_len + n)) {
			memcpy(in->spool + in->spool_len, p, n);
			in->spool_len += n;
			in->len += n;
			return;
		}
		spool_give_up(in);
	}
	if (in->buf_alloc - in->len < n) {
		/* Geometric: a window that keeps growing (a database read whole,
		   one huge value) is copied O(1) times per byte, not once per block. */
		in->buf_alloc = in->len + n > in->buf_alloc * 2 ? in->len + n : in->buf_alloc * 2;
		in->buf = osc_xrealloc(in->buf, in->buf_alloc);
		in->data = in->buf;
	}
	memcpy(in->buf + in->len, p, n);
	in->len += n;
}

/* More than max_len bytes came out of the input: a gzip bomb, or a stream too big. */
static enum osc_status too_big(const struct osc_input *in, const char *subject,
			       struct osc_error *err)
{
	return osc_error_set(err, OSC_RANGE, subject, (int64_t)in->max_len, NULL,
			     "%s more than %llu bytes (a gzip bomb? --max-input SIZE raises "
			     "the limit)",
			     in->codec == OSC_CODEC_ZSTD ? "zstd data expands to" :
			     in->codec ? "gzip data expands to" :
					 "standard input holds",
			     (unsigned long long)in->max_len);
}

enum osc_inflater osc_input_inflater(void)
{
	const char *e = getenv("OPSCOPE_INFLATE");

	if (e && !strcmp(e, "zlib"))
		return OSC_INFLATE_ZLIB;
#ifdef OPSCOPE_HAVE_ISAL
	return OSC_INFLATE_ISAL;
#else
	return OSC_INFLATE_ZLIB;
#endif
}

/* Set up gzip's inflater (ISA-L's or zlib's); false when it cannot start. */
static bool start_inflater(struct osc_input *in)
{
	in->inflater = osc_input_inflater();
#ifdef OPSCOPE_HAVE_ISAL
	if (in->inflater == OSC_INFLATE_ISAL) {
		/* Zeroed: isal_inflate_init leaves the history it copies from
		   unset, and a corrupt stream's distance past its start copies
		   from there (stale heap bytes in the output, differing run to run). */
		in->isal = osc_xcalloc(1, sizeof(*in->isal));
		isal_inflate_init(in->isal);
		in->isal->crc_flag = ISAL_GZIP; /* header parsed, CRC and length checked */
		return true;
	}
#endif
	return inflateInit2(&in->zs, 15 + 16) == Z_OK;
}

/* Set up the decoder of codec c (not NONE) over the compressed bytes src[0..n). */
static void start_decoder(struct osc_input *in, enum osc_codec c, const unsigned char *src,
			  size_t n)
{
	in->codec = c;
	if (c == OSC_CODEC_GZIP)
		in->z_live = start_inflater(in);
#ifdef OPSCOPE_HAVE_ZSTD
	/* Frames of `zstd --long` have windows past the default limit (128 MiB):
	   allow the format's largest, as the whole trace is kept anyway. */
	else
		in->z_live = (in->zd = ZSTD_createDCtx()) != NULL &&
			     !ZSTD_isError(ZSTD_DCtx_setParameter(in->zd, ZSTD_d_windowLogMax,
								  sizeof(size_t) == 4 ? 30 : 31));
#endif
	if (!in->z_live) {
		in->eof = true;
		in->z_bad = true;
		snprintf(in->z_msg, sizeof(in->z_msg), "cannot start %s decoder", osc_codec_name(c));
		return;
	}
	in->next_in = src;
	in->avail_in = n;
}

void osc_input_open_buffer(struct osc_input *in, const void *data, size_t len)
{
	init_common(in);
	in->file_size = len;
	if (sniff(data, len) != OSC_CODEC_NONE) {
		in->src = data;
		in->src_len = len;
		start_decoder(in, sniff(data, len), data, 0);
		return;
	}
	in->data = data;
	in->len = len;
	in->eof = true;
	in->file_read = len;
}

/*
 * Wait until a pipe, FIFO or terminal has bytes (or its writer left),
 * looking at the cancel flag meanwhile; false (errno ECANCELED) when
 * cancelled. A FIFO nobody opened for writing yet does not count as left.
 */
static bool wait_readable(struct osc_input *in)
{
	int waited = 0;

	for (;;) {
		struct pollfd p = { .fd = in->fd, .events = POLLIN };
		int r = poll(&p, 1, POLL_MS);

		if (r > 0 || (r < 0 && errno != EINTR))
			return true;
		if (in->wait.cancel && *in->wait.cancel) {
			errno = ECANCELED;
			return false;
		}
		waited += POLL_MS;
		if (waited >= SLOW_MS && !in->waited && in->wait.slow) {
			in->waited = true;
			in->wait.slow(in->wait.arg);
		}
	}
}

/*
 * read() once there is something to read (wait_readable), retrying on EINTR
 * and EAGAIN; returns bytes read, 0 at end, -1 on error (ECANCELED: cancelled).
 */
static ssize_t read_some(struct osc_input *in, void *buf, size_t n)
{
	ssize_t r;

	do
		r = wait_readable(in) ? read(in->fd, buf, n) : -1;
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r;
}

enum osc_status osc_load_cancelled(struct osc_error *err, const char *subject, int64_t offset)
{
	return osc_error_set(err, OSC_CANCELLED, subject, offset, NULL, "load cancelled");
}

/* The status of a failed read_some: cancelled or an I/O error. */
static enum osc_status read_error(const char *subject, int64_t offset, struct osc_error *err)
{
	if (errno == ECANCELED)
		return osc_load_cancelled(err, subject, offset);
	return osc_error_set(err, OSC_IO, subject, offset, NULL, "%s", strerror(errno));
}

static enum osc_status open_stream(struct osc_input *in, const char *path, struct osc_error *err)
{
	size_t got = 0;

#ifdef F_SETPIPE_SZ
	/* A pipe of 1 MiB (Linux's default most) instead of 64 KiB: the writer
	   and this reader take turns 16 times less often. Not a pipe: no harm. */
	fcntl(in->fd, F_SETPIPE_SZ, READ_CHUNK);
#endif
	/* Sniff the magic from the first bytes, then hand them to the right path. */
	in->rbuf_alloc = READ_CHUNK;
	in->rbuf = osc_xmalloc(READ_BACK + in->rbuf_alloc);
	while (got < 4) {
		ssize_t r = read_some(in, in->rbuf + got, in->rbuf_alloc - got);

		if (r < 0)
			return read_error(path, (int64_t)got, err);
		if (!r)
			break;
		got += (size_t)r;
	}
	in->file_read = got;
	spool_open(in, 0);
	if (sniff(in->rbuf, got) != OSC_CODEC_NONE) {
		start_decoder(in, sniff(in->rbuf, got), in->rbuf, got);
		in->z_read = got; /* the compressed bytes read so far */
		return OSC_OK;
	}
	if (!got)
		in->eof = true;
	if (in->stable) {
		window_append(in, (const char *)in->rbuf, got);
		/* Read on the decoder's thread, as if decoded: the writer is not held
		   back by the parser, and what is left at the end parses on all cores. */
		in->reader = got > 0;
		in->z_read = in->inflated = got;
		return OSC_OK;
	}
	in->buf_alloc = CHUNK > got ? CHUNK : got;
	in->buf = osc_xmalloc(in->buf_alloc);
	memcpy(in->buf, in->rbuf, got);
	in->data = in->buf;
	in->len = got;
	free(in->rbuf);
	in->rbuf = NULL;
	return OSC_OK;
}

/* Entries of a directory looked at for a hint: a huge one is not worth the wait. */
#define HINT_ENTRIES 4096

static bool looks_like_trace(const char *name)
{
	static const char *const ext[] = { ".json", ".gz", ".zst", ".sqlite", ".sql" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (len > strlen(ext[i]) && !strcmp(name + len - strlen(ext[i]), ext[i]))
			return true;
	return false;
}

/*
 * A name in directory dir ("" for the current one) for an error's hint:
 * with meant, the file that meant (a missing name) likely was (a typo, or the
 * name without its suffix: trace.json for trace.json.gz); without, the first
 * by name that looks like a trace. Written as dir + name into buf; false if
 * none.
 */
static bool hint_file(const char *dir, const char *meant, char *buf, size_t size)
{
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *e;
	char **names = osc_xcalloc(HINT_ENTRIES, sizeof(*names));
	const char *best = NULL;
	size_t n = 0;

	while (d && n < HINT_ENTRIES && (e = readdir(d))) {
		if (e->d_name[0] == '.' && !(meant && meant[0] == '.'))
			continue;
		if (!meant && !looks_like_trace(e->d_name))
			continue;
		names[n++] = osc_xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (meant) {
		best = osc_suggest(meant, (const char *const *)names, n);
	} else {
		for (size_t i = 0; i < n; i++)
			if (!best || strcmp(names[i], best) < 0)
				best = names[i];
	}
	if (best)
		snprintf(buf, size, "%s%s", dir, best);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return best != NULL;
}

/* "no such file", with the file of the same directory that path likely meant. */
static enum osc_status no_such_file(const char *path, struct osc_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir = osc_xstrndup(path, slash ? (size_t)(slash - path) + 1 : 0);
	char hint[1024];
	bool found = hint_file(dir, slash ? slash + 1 : path, hint, sizeof(hint));

	free(dir);
	return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "no such file%s%s%s",
			     found ? " (did you mean " : "", found ? hint : "", found ? "?)" : "");
}

/* A directory: opscope reads one trace; name one in it when there is one. */
static enum osc_status is_directory(const char *path, struct osc_error *err)
{
	size_t len = strlen(path);
	char *dir = osc_xmalloc(len + 2), hint[1024];
	bool found;

	snprintf(dir, len + 2, "%s%s", path, len && path[len - 1] == '/' ? "" : "/");
	found = hint_file(dir, NULL, hint, sizeof(hint));
	free(dir);
	return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL,
			     "is a directory: opscope takes one trace file%s%s",
			     found ? ", e.g. " : "", found ? hint : "");
}

/* A regular file (st its status, in->fd open on it): mapped whole, decoded when compressed. */
static enum osc_status open_mapped(struct osc_input *in, const struct stat *st, const char *path,
				   struct osc_error *err)
{
	in->file_size = (uint64_t)st->st_size;
	if (!st->st_size) {
		in->eof = true;
		return OSC_OK;
	}
	in->map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (in->map == MAP_FAILED) {
		in->map = NULL;
		return open_stream(in, path, err);
	}
	in->map_len = (size_t)st->st_size;
	in->guard = osc_mapguard_watch(in->map, in->map_len, in->fd);
	madvise(in->map, in->map_len, MADV_SEQUENTIAL);
	if (sniff(in->map, in->map_len) != OSC_CODEC_NONE) {
		in->src = in->map;
		in->src_len = in->map_len;
		spool_open(in, in->map_len > SIZE_MAX / SPOOL_RATIO ? SIZE_MAX / 2 :
						   in->map_len * SPOOL_RATIO);
		start_decoder(in, sniff(in->map, in->map_len), in->map, 0);
		return OSC_OK;
	}
	in->data = in->map;
	in->len = in->map_len;
	in->file_read = in->map_len;
	in->eof = true;
	in->stable = true;
	return OSC_OK;
}

enum osc_status osc_input_open(struct osc_input *in, const char *path,
			       const struct osc_input_wait *wait, struct osc_error *err)
{
	struct stat st;

	init_common(in);
	if (wait)
		in->wait = *wait;
	if (!strcmp(path, "-")) {
		in->fd = 0;
		/* Redirected from a file (and at its start): read as that file is. */
		if (!fstat(in->fd, &st) && S_ISREG(st.st_mode) && lseek(in->fd, 0, SEEK_CUR) == 0)
			return open_mapped(in, &st, path, err);
		return open_stream(in, path, err);
	}
	/* O_NONBLOCK: a FIFO with no writer yet opens at once (reads wait on poll). */
	in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in->fd < 0 && errno == ENOENT)
		return no_such_file(path, err);
	if (in->fd < 0)
		return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "%s", strerror(errno));
	in->own_fd = true;
	if (fstat(in->fd, &st) < 0)
		return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return is_directory(path, err);
	if (!S_ISREG(st.st_mode))
		return open_stream(in, path, err);
	return open_mapped(in, &st, path, err);
}

/* Give the decoder more compressed input; false when there is none left. */
static bool feed(struct osc_input *in, const char *subject, struct osc_error *err,
		 enum osc_status *st)
{
	ssize_t r;

	if (in->src) {
		size_t used = in->next_in ? (size_t)(in->next_in - in->src) : 0;

		if (used >= in->src_len)
			return false;
		size_t n = in->src_len - used;

		/* zlib counts in uInt: feed large maps in slices. */
		if (n > READ_CHUNK * 64)
			n = READ_CHUNK * 64;
		in->next_in = in->src + used;
		in->avail_in = n;
		return true;
	}
	/* The last bytes taken stay just before the new ones (isal_check_failed reads them). */
	size_t back = (size_t)(in->next_in - in->rbuf) - in->rbuf_from;

	back = back < READ_BACK ? back : READ_BACK;
	memmove(in->rbuf + READ_BACK - back, in->next_in - back, back);
	in->rbuf_from = READ_BACK - back;
	r = read_some(in, in->rbuf + READ_BACK, in->rbuf_alloc);
	if (r < 0) {
		*st = read_error(subject, (int64_t)in->z_read, err);
		return false;
	}
	if (!r)
		return false;
	in->z_read += (uint64_t)r;
	in->next_in = in->rbuf + READ_BACK;
	in->avail_in = (size_t)r;
	return true;
}

static void decoder_fail(struct osc_input *in, const char *msg)
{
	in->z_bad = true;
	in->z_end = true;
	snprintf(in->z_msg, sizeof(in->z_msg), "%s", msg);
}

/* One gzip step into out[*done..cap); false when it failed (decoder_fail said why). */
static bool inflate_step(struct osc_input *in, char *out, size_t cap, size_t *done)
{
	int rc;

	in->zs.next_in = (unsigned char *)in->next_in;
	in->zs.avail_in = (uInt)in->avail_in;
	in->zs.next_out = (unsigned char *)out + *done;
	in->zs.avail_out = (uInt)(cap - *done);
	rc = inflate(&in->zs, Z_NO_FLUSH);
	in->next_in = in->zs.next_in;
	in->avail_in = in->zs.avail_in;
	*done = cap - in->zs.avail_out;
	if (rc == Z_STREAM_END)
		in->z_done = true;
	else if (rc != Z_OK && !(rc == Z_BUF_ERROR && !in->avail_in)) {
		const char *msg = in->zs.msg ? in->zs.msg : "corrupt gzip data";

		in->z_check_failed = strstr(msg, "incorrect data check") ||
				     strstr(msg, "incorrect length check");
		decoder_fail(in, msg);
		return false;
	}
	return true;
}

#ifdef OPSCOPE_HAVE_ISAL
/* ISA-L's error codes in zlib's words, so both inflaters say the same. */
static const char *isal_msg(int rc)
{
	switch (rc) {
	case ISAL_INCORRECT_CHECKSUM: /* of the header (isal_check_failed: the trailer's) */
		return "header crc mismatch";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	default:
		return "corrupt gzip data";
	}
}

/*
 * The member's trailer (CRC-32, then length) does not match: say which as
 * zlib does, at the byte zlib stops at (after the CRC when it is wrong), so
 * both inflaters give the same error. The trailer is the 8 bytes just taken
 * (feed keeps them readable across reads).
 */
static bool isal_check_failed(struct osc_input *in, const struct inflate_state *s)
{
	const unsigned char *t = in->next_in - 8;
	uint32_t crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
		       (uint32_t)t[3] << 24;
	bool bad_crc = crc != s->crc;

	in->z_check_failed = true;
	in->avail_in += (size_t)(in->next_in - (t + (bad_crc ? 4 : 8)));
	in->next_in = t + (bad_crc ? 4 : 8);
	decoder_fail(in, bad_crc ? "incorrect data check" : "incorrect length check");
	return false;
}
#endif

/* One gzip step by ISA-L, as inflate_step. */
static bool isal_step(struct osc_input *in, char *out, size_t cap, size_t *done)
{
#ifdef OPSCOPE_HAVE_ISAL
	struct inflate_state *s = in->isal;
	int rc;

	/* feed() hands out at most 64 MB of input, and out is a block */
	s->next_in = (uint8_t *)in->next_in;
	s->avail_in = (uint32_t)in->avail_in;
	s->next_out = (uint8_t *)out + *done;
	s->avail_out = (uint32_t)(cap - *done);
	rc = isal_inflate(s);
	in->next_in = s->next_in;
	in->avail_in = s->avail_in;
	in->member_out += cap - s->avail_out - *done;
	*done = cap - s->avail_out;
	if (rc == ISAL_INCORRECT_CHECKSUM && s->block_state == ISAL_BLOCK_FINISH)
		return isal_check_failed(in, s);
	if (rc < 0) {
		decoder_fail(in, isal_msg(rc));
		return false;
	}
	/* At the end of a member it gives back what it read past the trailer. */
	if (s->block_state == ISAL_BLOCK_FINISH)
		in->z_done = true;
	return true;
#else
	(void)out;
	(void)cap;
	(void)done;
	decoder_fail(in, "ISA-L is not built in");
	return false;
#endif
}

/*
 * Where a file is cut, ISA-L stops a few bits short (it decodes only what its
 * bit buffer holds whole), zlib at the last whole symbol. So that a cut file
 * keeps the same bytes with both, zlib inflates the cut member again and what
 * it gives past ISA-L's bytes is added to out (a cut file only: a pipe
 * cannot be read twice).
 */
static void isal_cut_tail(struct osc_input *in, char *out, size_t cap, size_t *done)
{
	z_stream zs;
	unsigned char buf[1 << 16];
	const unsigned char *p = in->src + in->member_at;
	size_t left = in->src_len - in->member_at;
	uint64_t skip = in->member_out;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return;
	while (*done < cap) {
		size_t n, from, k;
		int rc;

		if (!zs.avail_in && left) {
			zs.next_in = (unsigned char *)p;
			zs.avail_in = (uInt)(left < READ_CHUNK * 64 ? left : READ_CHUNK * 64);
			p += zs.avail_in;
			left -= zs.avail_in;
		}
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		rc = inflate(&zs, Z_NO_FLUSH);
		n = sizeof(buf) - zs.avail_out;
		from = skip < n ? (size_t)skip : n;
		skip -= from;
		k = n - from < cap - *done ? n - from : cap - *done;
		memcpy(out + *done, buf + from, k);
		*done += k;
		if (rc != Z_OK || (!n && !zs.avail_in && !left))
			break;
	}
	inflateEnd(&zs);
}

/* One zstd step, as inflate_step. */
static bool zstd_step(struct osc_input *in, char *out, size_t cap, size_t *done)
{
#ifdef OPSCOPE_HAVE_ZSTD
	ZSTD_inBuffer ib = { in->next_in, in->avail_in, 0 };
	ZSTD_outBuffer ob = { out, cap, *done };
	size_t rc = ZSTD_decompressStream(in->zd, &ob, &ib);
	char msg[128];

	in->next_in += ib.pos;
	in->avail_in -= ib.pos;
	*done = ob.pos;
	if (ZSTD_isError(rc)) {
		in->z_check_failed = ZSTD_getErrorCode(rc) == ZSTD_error_checksum_wrong;
		snprintf(msg, sizeof(msg), "zstd: %s", ZSTD_getErrorName(rc));
		decoder_fail(in, msg);
		return false;
	}
	/* 0: a frame ended with everything flushed (else it wants input or room) */
	in->z_done = rc == 0;
	return true;
#else
	(void)out;
	(void)cap;
	(void)done;
	decoder_fail(in, "zstd is not built in");
	return false;
#endif
}

/*
 * read_some into buf[0..cap) until it is full or the stream ends (*end): the
 * bytes read; *failed when a read failed after them (errno says why).
 */
static size_t read_fill(struct osc_input *in, char *buf, size_t cap, bool *end, bool *failed)
{
	size_t got = 0;

	*end = *failed = false;
	while (got < cap) {
		ssize_t r = read_some(in, buf + got, cap - got);

		if (r <= 0) {
			*end = !r;
			*failed = r < 0;
			break;
		}
		got += (size_t)r;
	}
	return got;
}

/* A plain stream's next bytes (the decoder thread of in->reader). */
static enum osc_status read_into(struct osc_input *in, char *out, size_t cap, size_t *got,
				 const char *subject, struct osc_error *err)
{
	bool end, failed;

	*got = read_fill(in, out, cap, &end, &failed);
	in->z_read += *got;
	in->z_end = end || failed;
	return failed ? read_error(subject, (int64_t)in->z_read, err) : OSC_OK;
}

/* Decompress into out[0..cap); *got bytes came out. Sets z_end at the end. */
static enum osc_status inflate_into(struct osc_input *in, char *out, size_t cap, size_t *got,
				    const char *subject, struct osc_error *err)
{
	enum osc_status st = OSC_OK;
	size_t done = 0;

	if (in->reader)
		return read_into(in, out, cap, got, subject, err);
	while (done < cap && !in->z_end) {
		if (!in->avail_in && !feed(in, subject, err, &st)) {
			if (st != OSC_OK)
				return st;
			/* zstd may hold decoded bytes that found no room yet */
			if (!in->z_done && in->codec == OSC_CODEC_ZSTD) {
				size_t before = done;

				if (!zstd_step(in, out, cap, &done))
					break;
				if (done > before || in->z_done)
					continue;
			}
			if (!in->z_done && in->isal && in->src)
				isal_cut_tail(in, out, cap, &done);
			if (!in->z_done) {
				decoder_fail(in, in->codec == OSC_CODEC_ZSTD ? "zstd data ends early"
									    : "gzip data ends early");
				in->z_cut = true;
			}
			in->z_end = true;
			break;
		}
		if (in->z_done) {
			/* Another member (frame) follows? Anything else ends the stream. */
			if (!is_member(in, in->next_in, in->avail_in)) {
				in->z_trailing = true;
				in->z_trailing_at = in->src ? (uint64_t)(in->next_in - in->src)
							    : in->z_read - in->avail_in;
				in->z_end = true;
				break;
			}
			if (in->codec == OSC_CODEC_GZIP && in->isal) {
#ifdef OPSCOPE_HAVE_ISAL
				isal_inflate_reset(in->isal);
				in->isal->crc_flag = ISAL_GZIP;
#endif
				if (in->src)
					in->member_at = (size_t)(in->next_in - in->src);
				in->member_out = 0;
			} else if (in->codec == OSC_CODEC_GZIP) {
				inflateReset(&in->zs);
			}
			in->z_done = false;
		}
		if (!(in->codec == OSC_CODEC_ZSTD ? zstd_step :
		      in->isal		       ? isal_step :
						 inflate_step)(in, out, cap, &done))
			break;
	}
	*got = done;
	if (in->src)
		in->z_read = (uint64_t)(in->next_in - in->src);
	return OSC_OK;
}

/*
 * Where the thread decompresses its next block: the spool's free end (after
 * waiting for room), else b's buffer (*spool false from then on). Called with
 * the lock held; *room is 0 when told to stop.
 */
static char *gz_out(struct gz_pipe *gp, struct gz_block *b, bool *spool, size_t *room)
{
	while (*spool && gp->spooled == gp->cap && !gp->stop && !gp->no_room) {
		gp->want_room = true;
		pthread_cond_broadcast(&gp->cond);
		pthread_cond_wait(&gp->cond, &gp->lock);
	}
	if (*spool && gp->spooled == gp->cap && gp->no_room)
		*spool = false;
	if (!*spool) {
		while (gp->nfull == 2 && !gp->stop)
			pthread_cond_wait(&gp->cond, &gp->lock);
		*room = gp->stop ? 0 : GZ_BLOCK;
		return b->p;
	}
	*room = gp->stop ? 0 : gp->cap - gp->spooled < GZ_BLOCK ? gp->cap - gp->spooled : GZ_BLOCK;
	return gp->mem + gp->spooled;
}

static void *gz_thread(void *arg)
{
	struct osc_input *in = arg;
	struct gz_pipe *gp = in->pipe;
	bool spool = osc_input_spooled(in);
	unsigned tail = 0;

	for (;;) {
		struct gz_block *b = &gp->blk[tail];
		size_t room;
		char *out;

		pthread_mutex_lock(&gp->lock);
		out = gz_out(gp, b, &spool, &room);
		pthread_mutex_unlock(&gp->lock);
		if (!room)
			break;
		b->st = inflate_into(in, out, room, &b->len, gp->subject, &gp->err);
		b->file_read = in->z_read;
		in->inflated += b->len;
		if (b->st == OSC_OK && in->max_len && in->inflated > in->max_len)
			b->st = too_big(in, gp->subject, &gp->err); /* stop inflating here */
		b->last = in->z_end || b->st != OSC_OK;
		pthread_mutex_lock(&gp->lock);
		if (spool) {
			/* Publish the bytes: the window grows over them where they are. */
			gp->spooled += b->len;
			gp->spooled_read = b->file_read;
			gp->spool_end = b->last;
			gp->spool_st = b->st;
		} else {
			gp->nfull++;
			tail ^= 1;
		}
		pthread_cond_broadcast(&gp->cond);
		pthread_mutex_unlock(&gp->lock);
		if (b->last)
			break;
	}
	return NULL;
}

static void gz_start(struct osc_input *in, const char *subject)
{
	struct gz_pipe *gp = osc_xcalloc(1, sizeof(*gp));

	for (int i = 0; i < 2; i++)
		gp->blk[i].p = osc_xmalloc(GZ_BLOCK);
	gp->subject = subject;
	gp->mem = in->spool;
	gp->cap = in->spool_cap;
	gp->spooled = in->spool_len; /* a plain stream's first bytes, read to sniff them */
	pthread_mutex_init(&gp->lock, NULL);
	pthread_cond_init(&gp->cond, NULL);
	in->pipe = gp;
	if (pthread_create(&gp->th, NULL, gz_thread, in)) {
		/* No thread: inflate here, one block at a time. */
		gp->th = pthread_self();
		gp->stop = true;
	}
}

/* Inflate the next block here (no thread) into the window. */
static enum osc_status gz_inline(struct osc_input *in, const char *subject, struct osc_error *err)
{
	struct gz_pipe *gp = in->pipe;
	struct gz_block *b = &gp->blk[0];

	b->st = inflate_into(in, b->p, GZ_BLOCK, &b->len, subject, &gp->err);
	in->inflated += b->len;
	if (b->st == OSC_OK && in->max_len && in->inflated > in->max_len)
		b->st = too_big(in, subject, &gp->err);
	if (b->st != OSC_OK) {
		if (err)
			*err = gp->err;
		return b->st;
	}
	window_append(in, b->p, b->len);
	in->file_read = in->z_read;
	in->eof = in->z_end;
	return OSC_OK;
}

/*
 * The thread waits for a larger spool (it writes nothing meanwhile): the
 * spool grows, and may move (the window follows), or when it cannot, the
 * window goes on in a buffer. Called with the lock held.
 */
static void give_room(struct osc_input *in, struct gz_pipe *gp)
{
	if (spool_grow(in, gp->cap + 1)) {
		gp->mem = in->spool;
		gp->cap = in->spool_cap;
	} else {
		gp->no_room = true;
		spool_give_up(in);
	}
	gp->want_room = false;
	pthread_cond_broadcast(&gp->cond);
}

/*
 * The window takes in what the thread spooled since the last call (called
 * with the lock held, which it releases).
 */
static enum osc_status gz_take_spooled(struct osc_input *in, struct gz_pipe *gp,
				       struct osc_error *err)
{
	size_t n = gp->spooled;
	bool end = gp->spool_end;
	enum osc_status st = gp->spool_st;

	in->file_read = gp->spooled_read;
	pthread_mutex_unlock(&gp->lock);
	in->len += n - in->spool_len;
	in->spool_len = n;
	if (end) {
		in->eof = true;
		if (st != OSC_OK && err)
			*err = gp->err;
		return st;
	}
	return OSC_OK;
}

bool osc_input_poll(struct osc_input *in)
{
	struct gz_pipe *gp = in->pipe;
	bool more;

	if (!gp || gp->stop || !osc_input_spooled(in))
		return false;
	pthread_mutex_lock(&gp->lock);
	if (gp->want_room) {
		give_room(in, gp);
		if (!in->stable) {
			pthread_mutex_unlock(&gp->lock);
			return false;
		}
	}
	more = gp->spooled > in->spool_len || (gp->spool_end && !in->eof);
	/* A stream that ended badly is left to osc_input_more, which reports it. */
	if (!more || (gp->spool_end && gp->spool_st != OSC_OK)) {
		pthread_mutex_unlock(&gp->lock);
		return false;
	}
	gz_take_spooled(in, gp, NULL);
	return true;
}

/* More decompressed bytes into the window: spooled ones, or the next block. */
static enum osc_status gz_next(struct osc_input *in, const char *subject, struct osc_error *err)
{
	struct gz_pipe *gp = in->pipe;
	struct gz_block *b;
	enum osc_status st;

	if (!gp)
		gz_start(in, subject);
	gp = in->pipe;
	if (gp->stop)
		return gz_inline(in, subject, err);
	pthread_mutex_lock(&gp->lock);
	for (;;) {
		if (osc_input_spooled(in)) {
			if (gp->spooled > in->spool_len || gp->spool_end)
				return gz_take_spooled(in, gp, err);
			if (gp->want_room) {
				give_room(in, gp);
				continue;
			}
		} else if (gp->nfull) {
			break;
		}
		pthread_cond_wait(&gp->cond, &gp->lock);
	}
	pthread_mutex_unlock(&gp->lock);
	b = &gp->blk[gp->head];
	st = b->st;
	if (st != OSC_OK) {
		if (err)
			*err = gp->err;
		return st;
	}
	window_append(in, b->p, b->len);
	in->file_read = b->file_read;
	in->eof = b->last;
	pthread_mutex_lock(&gp->lock);
	gp->head ^= 1;
	gp->nfull--;
	pthread_cond_broadcast(&gp->cond);
	pthread_mutex_unlock(&gp->lock);
	return OSC_OK;
}

static void gz_stop(struct osc_input *in)
{
	struct gz_pipe *gp = in->pipe;

	if (!gp)
		return;
	if (!pthread_equal(gp->th, pthread_self())) {
		pthread_mutex_lock(&gp->lock);
		gp->stop = true;
		pthread_cond_broadcast(&gp->cond);
		pthread_mutex_unlock(&gp->lock);
		pthread_join(gp->th, NULL);
	}
	pthread_mutex_destroy(&gp->lock);
	pthread_cond_destroy(&gp->cond);
	free(gp->blk[0].p);
	free(gp->blk[1].p);
	free(gp);
	in->pipe = NULL;
}

/*
 * Standard input or a pipe that no thread reads (no spool could be
 * reserved): more bytes into the buffer's window.
 */
static enum osc_status read_more(struct osc_input *in, const char *subject, struct osc_error *err)
{
	bool end, failed;
	size_t got = read_fill(in, in->buf + in->len, in->buf_alloc - in->len, &end, &failed);

	in->file_read += got;
	if (failed)
		return read_error(subject, (int64_t)(in->base + in->len + got), err);
	in->eof = end;
	in->len += got;
	if (in->max_len && in->base + in->len > in->max_len)
		return too_big(in, subject, err);
	return OSC_OK;
}

enum osc_status osc_input_more(struct osc_input *in, size_t keep, const char *subject,
			       struct osc_error *err)
{
	if (in->eof)
		return OSC_OK;
	if (keep > in->len)
		keep = in->len;
	in->len -= keep;
	in->base += keep;
	if (in->stable) {
		/* Spooled: nothing moves, the window starts later. */
		in->data += keep;
	} else {
		if (!in->buf) {
			in->buf_alloc = CHUNK;
			in->buf = osc_xmalloc(in->buf_alloc);
		}
		memmove(in->buf, in->buf + keep, in->len);
		/* A value longer than the window: grow it. */
		if (in->buf_alloc - in->len < CHUNK / 2) {
			in->buf_alloc *= 2;
			in->buf = osc_xrealloc(in->buf, in->buf_alloc);
		}
		in->data = in->buf;
	}
	if (in->codec || in->reader)
		return gz_next(in, subject, err);
	return read_more(in, subject, err);
}

void osc_input_release(const struct osc_input *in, size_t from, size_t to)
{
	/* The spool's bytes are their only copy: a shard may read on into them. */
	if (!in->stable || in->spool)
		return;
	osc_give_back(in->map, 1, (size_t)in->base + from, (size_t)in->base + to);
}

/* Give back whole pages of map[*released .. done). */
static void release_pages(char *map, size_t *released, size_t done)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0)
		return;
	done -= done % (size_t)page;
	if (done > *released) {
		madvise(map + *released, done - *released, MADV_DONTNEED);
		*released = done;
	}
}

void osc_input_consumed(struct osc_input *in, size_t upto)
{
	if (in->map)
		release_pages(in->map, &in->map_released,
			      in->codec ? (size_t)in->file_read : (size_t)in->base + upto);
	/* In whole huge pages, a few at a time: each call stops the other cores
	   to flush their TLBs. */
	if (osc_input_spooled(in) && in->base + upto >= in->spool_released + SPOOL_RELEASE_STEP)
		release_pages(in->spool, &in->spool_released,
			      ((size_t)in->base + upto) & ~(SPOOL_RELEASE_STEP - 1));
}

bool osc_input_spooled(const struct osc_input *in)
{
	return in->spool && in->stable;
}

bool osc_input_detach_map(struct osc_input *in, void **map, size_t *len,
			  struct osc_mapguard **guard)
{
	if (!in->map || in->codec)
		return false;
	*map = in->map;
	*len = in->map_len;
	*guard = in->guard;
	in->map = NULL;
	in->guard = NULL;
	return true;
}

bool osc_input_shrunk(const struct osc_input *in, uint64_t *size)
{
	return osc_mapguard_shrunk(in->guard, size);
}

void osc_input_close(struct osc_input *in)
{
	gz_stop(in);
	if (in->z_live && in->codec == OSC_CODEC_GZIP && !in->isal)
		inflateEnd(&in->zs);
	free(in->isal);
#ifdef OPSCOPE_HAVE_ZSTD
	ZSTD_freeDCtx(in->zd);
#endif
	osc_mapguard_free(in->guard);
	if (in->map)
		munmap(in->map, in->map_len);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	if (in->spool)
		munmap(in->spool, in->spool_cap);
	free(in->buf);
	free(in->rbuf);
	init_common(in);
}
