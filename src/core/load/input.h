/*
 * input.h - a window of uncompressed input bytes (private to the loaders).
 *
 * Plain files are mapped whole (the window is the file, eof at once) and the
 * pages already parsed are given back to the kernel as parsing moves on.
 * gzip and zstd (sniffed by their magic bytes) are decompressed on their own
 * thread straight into anonymous memory (reserved large, grown by mremap)
 * while the parser reads what is there; plain standard input (or a pipe) is
 * read there on such a thread too. Those bytes keep stable offsets like a
 * mapped file's, so shards of them parse on all cores, but their reader
 * copies the args it keeps (osc_input_spooled) and their pages are given
 * back as they are parsed. No temporary file is written. Where that memory
 * cannot be reserved, or for a buffer input, they stream through a chunked
 * buffer instead:
 * osc_input_more() drops the bytes before `keep` and appends more, so the
 * whole decompressed input is never held (args are copied then).
 *
 * gzip is inflated by ISA-L when built with it (OPSCOPE_HAVE_ISAL), else by
 * zlib; OPSCOPE_INFLATE=zlib|isal picks one at run time (tests compare them).
 */
#ifndef OPSCOPE_INPUT_H
#define OPSCOPE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "opscope/base/status.h"

struct ZSTD_DCtx_s;
struct inflate_state;

/* How the input is compressed (sniffed by magic bytes). */
enum osc_codec {
	OSC_CODEC_NONE,
	OSC_CODEC_GZIP, /* one or more gzip members (ISA-L or zlib) */
	OSC_CODEC_ZSTD, /* one or more zstd frames (libzstd, when built with it) */
};

/* "gzip", "zstd", or NULL for OSC_CODEC_NONE. */
const char *osc_codec_name(enum osc_codec c);

/* Which library inflates gzip. */
enum osc_inflater {
	OSC_INFLATE_ZLIB,
	OSC_INFLATE_ISAL, /* only when built with OPSCOPE_HAVE_ISAL */
};

/*
 * The inflater gzip inputs opened from now on use: OPSCOPE_INFLATE ("zlib"
 * or "isal") when set to one built in, else ISA-L when built in, else zlib.
 */
enum osc_inflater osc_input_inflater(void);

/* What a read from a pipe, FIFO or terminal does while nothing comes. */
struct osc_input_wait {
	volatile int *cancel;    /* set non-zero: stop waiting, the read fails with
				    OSC_CANCELLED; NULL: wait for ever */
	void (*slow)(void *arg); /* called once when nothing came for a second, or NULL */
	void *arg;
};

struct osc_input {
	const char *data;    /* the window */
	size_t len;          /* bytes in the window */
	bool eof;            /* nothing follows the window */
	uint64_t base;       /* uncompressed offset of data[0] */
	uint64_t file_read;  /* bytes taken from the file so far (compressed ones when
				compressed) */
	uint64_t file_size;  /* file size, 0 when unknown */
	enum osc_codec codec;
	bool z_bad;          /* the compressed stream ended early or was corrupt */
	bool z_check_failed; /* the data decoded but its checksum or length is wrong */
	bool z_trailing;     /* bytes that are not a gzip member (zstd frame) follow the last */
	uint64_t z_trailing_at; /* the first of them: its offset in the compressed file */
	bool z_cut;          /* z_bad because the stream stops early (a cut file): what
				decoded is exact, like the start of a cut plain file */
	char z_msg[128];     /* why, when z_bad */
	bool stable;         /* the window is a mapping (file or decompressed memory):
				offsets stay readable while parsing (osc_input_detach_map
				hands a file's over) */
	uint64_t max_len;    /* set by the caller: uncompressed bytes of compressed or
				standard input allowed (a gzip bomb stops there, OSC_RANGE);
				0: any */

	/* private */
	struct osc_input_wait wait;
	bool waited;         /* wait.slow was called */
	uint64_t inflated;   /* bytes the inflater produced (its thread's, then ours) */
	int fd;              /* streaming source, -1 if none */
	bool own_fd;
	void *map;           /* mapped file, NULL if none */
	struct osc_mapguard *guard; /* watches map (mapguard.h), NULL if none */
	size_t map_len, map_released;
	const unsigned char *src; /* compressed bytes in memory (map or buffer) */
	size_t src_len;
	const unsigned char *next_in; /* the compressed bytes the decoder has next */
	size_t avail_in;     /* how many */
	enum osc_inflater inflater; /* gzip's */
	z_stream zs;         /* gzip by zlib */
	struct inflate_state *isal; /* gzip by ISA-L, NULL if not */
	size_t member_at;    /* where ISA-L's current member starts in src */
	uint64_t member_out; /* and the bytes it gave for it so far */
	struct ZSTD_DCtx_s *zd; /* zstd */
	bool z_live, z_done; /* the decoder is set up; it ended a member (frame) */
	bool reader;         /* a plain stream read on the decoder thread (no decoder) */
	bool z_end;          /* the decoder reached the end (or gave up) */
	uint64_t z_read;     /* compressed bytes the decoder took */
	struct gz_pipe *pipe; /* the inflating thread, once started */
	char *buf;           /* streaming window storage */
	size_t buf_alloc;
	unsigned char *rbuf; /* compressed read buffer for fd sources: READ_BACK bytes of
				the previous read, then rbuf_alloc */
	size_t rbuf_alloc;
	size_t rbuf_from;    /* where its bytes of the stream start */
	char *spool;         /* anonymous memory holding the decompressed bytes (or
				standard input): spool_cap reserved, spool_len there */
	size_t spool_cap, spool_len;
	size_t spool_released; /* its bytes before this were given back (parsed) */
};

/*
 * Open path ("-": standard input). A FIFO is opened without waiting for its
 * writer: reads from it, a pipe or a terminal wait as wait says (may be
 * NULL). Errors: OSC_IO with a message ("no such file", "is a directory",
 * ...), OSC_CANCELLED. subject is the path as given.
 */
enum osc_status osc_input_open(struct osc_input *in, const char *path,
			       const struct osc_input_wait *wait, struct osc_error *err);

/* Read from memory (not copied: data must outlive the input). */
void osc_input_open_buffer(struct osc_input *in, const void *data, size_t len);

/*
 * Drop window bytes before offset keep and append more input. On return the
 * window may have moved (pointers into it are invalid). Errors: OSC_IO,
 * OSC_CANCELLED, OSC_RANGE (more than max_len).
 * A corrupt or short compressed stream is not an error here: the window ends
 * (eof) and z_bad says why.
 */
enum osc_status osc_input_more(struct osc_input *in, size_t keep, const char *subject,
			       struct osc_error *err);

/*
 * Without waiting, the window takes in what a spooling decoder thread wrote
 * since, and eof once it ended well; a decoder waiting for room gets it. The
 * window may move (pointers into it are invalid). True when the window grew
 * or reached eof.
 */
bool osc_input_poll(struct osc_input *in);

/*
 * Bytes [from, to) of a stable window (offsets into it) are parsed (by a
 * helper thread): the whole pages of a mapped file are given back (the
 * spool's are kept: they are the only copy, and another shard may read
 * into them yet; osc_input_consumed gives them back). Safe from any thread.
 */
void osc_input_release(const struct osc_input *in, size_t from, size_t to);

/*
 * Bytes of the window before upto are parsed and nothing refers to them any
 * more: a mapped file's pages may be given back, and the spool's (its
 * reader copied what it keeps of them: osc_input_spooled).
 */
void osc_input_consumed(struct osc_input *in, size_t upto);

/*
 * The window is the spool, anonymous memory that holds the only copy of
 * the bytes and is given back as they are parsed (osc_input_consumed): a
 * reader copies what it keeps of them (args) instead of referring to them.
 */
bool osc_input_spooled(const struct osc_input *in);

/*
 * Hand the mapping of a plain mapped file to the caller (which munmaps *len
 * bytes at *map), so its offsets stay readable after osc_input_close;
 * *guard gets its watch, which the caller frees before unmapping. False
 * when the input is not a plain mapped file.
 */
bool osc_input_detach_map(struct osc_input *in, void **map, size_t *len,
			  struct osc_mapguard **guard);

/*
 * Whether the mapped file shrank while it was read (the bytes read past its
 * new end were zeros): *size gets its size now.
 */
bool osc_input_shrunk(const struct osc_input *in, uint64_t *size);

void osc_input_close(struct osc_input *in);

/*
 * The error of a load stopped by its cancel flag (or a read the flag
 * interrupted): OSC_CANCELLED, "load cancelled", naming subject at offset
 * (OSC_NO_OFFSET: none). One wording for every loader.
 */
enum osc_status osc_load_cancelled(struct osc_error *err, const char *subject, int64_t offset);

#endif
