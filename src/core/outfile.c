/* outfile.c - writing an output file atomically (temporary file, then rename). */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/alloc.h"
#include "opscope/outfile.h"

/* An output being written: stdout, a device written in place, or a temporary file. */
struct output {
	FILE *fp;
	char *path; /* NULL for stdout */
	char *tmp;  /* temporary file next to path */
};

/* The temporary file being written, for osc_outfile_abandon (one at a time). */
static _Atomic(const char *) pending;

/* output_close is used by output_open's failure paths. */
static enum osc_status output_close(struct output *o, bool commit, struct osc_error *err);

static enum osc_status io_error(struct osc_error *err, const char *path, const char *what)
{
	return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "%s: %s", what,
			     strerror(errno));
}

static enum osc_status output_open(struct output *o, const char *path,
				    struct osc_error *err)
{
	struct stat sb;
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return OSC_OK;
	}
	o->path = osc_xstrdup(path);
	/* A device or pipe (-o /dev/null) is written in place: never renamed over. */
	if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
		o->fp = fopen(path, "w");
		if (!o->fp) {
			io_error(err, path, "cannot write");
			free(o->path);
			o->path = NULL;
			return OSC_IO;
		}
		return OSC_OK;
	}
	o->tmp = osc_xasprintf("%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		io_error(err, path, "cannot write");
		free(o->tmp); /* never unlink a name mkstemp did not create */
		o->tmp = NULL;
		output_close(o, false, NULL);
		return OSC_IO;
	}
	atomic_store(&pending, o->tmp);
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		close(fd);
		io_error(err, path, "cannot write");
		output_close(o, false, NULL);
		return OSC_IO;
	}
	return OSC_OK;
}

static enum osc_status output_close(struct output *o, bool commit,
				     struct osc_error *err)
{
	enum osc_status st = OSC_OK;

	if (o->fp == stdout) {
		if (commit && (fflush(stdout) || ferror(stdout)))
			st = io_error(err, "output", "cannot write");
	} else if (o->fp) {
		bool bad = commit && (fflush(o->fp) || ferror(o->fp));

		if (fclose(o->fp) || bad)
			st = commit ? io_error(err, o->path, "cannot write") : OSC_OK;
		if (o->tmp && commit && st == OSC_OK && rename(o->tmp, o->path))
			st = io_error(err, o->path, "cannot rename the temporary file");
	}
	if (o->tmp && (!commit || st != OSC_OK))
		unlink(o->tmp);
	atomic_store(&pending, NULL);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return st;
}

void osc_outfile_abandon(void)
{
	const char *tmp = atomic_exchange(&pending, NULL);

	if (tmp)
		unlink(tmp);
}

enum osc_status osc_write_file(const char *path, osc_writer fn, const void *arg,
			       struct osc_error *err)
{
	struct output out;
	enum osc_status st = output_open(&out, path, err);

	if (st != OSC_OK)
		return st;
	st = fn(out.fp, arg, err);
	if (st != OSC_OK) {
		if (path && strcmp(path, "-"))
			snprintf(err->subject, sizeof(err->subject), "%s", path);
		output_close(&out, false, NULL);
		return st;
	}
	return output_close(&out, true, err);
}

struct table_write {
	enum osc_export_format format;
	const struct osc_table *table;
	const struct osc_export_meta *meta;
	int width;
	unsigned flags;
};

static enum osc_status write_table(FILE *out, const void *arg, struct osc_error *err)
{
	const struct table_write *w = arg;

	return osc_export_table(out, w->format, w->table, w->meta, w->width, w->flags, err);
}

enum osc_status osc_export_file(const char *path, enum osc_export_format f,
				const struct osc_table *t, const struct osc_export_meta *m,
				int width, unsigned flags, struct osc_error *err)
{
	struct table_write w = { f, t, m, width, flags };

	return osc_write_file(path, write_table, &w, err);
}
