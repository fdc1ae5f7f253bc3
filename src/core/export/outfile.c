/* outfile.c - writing an output file atomically (temporary file, then rename). */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"

/* An output being written: stdout, a device written in place, or a temporary file. */
struct output {
	FILE *fp;
	char *path;    /* NULL for stdout; for a symbolic link, the file it points to */
	const char *name; /* the path as given, for messages */
	char *tmp;     /* temporary file next to path */
	bool replace;  /* the temporary file replaces an existing path */
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

static enum osc_status exists_error(struct osc_error *err, const char *path)
{
	return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL,
			     "the file exists, not replaced (--force replaces it)");
}

/* Where the symbolic link path points (resolved against its directory), or NULL. */
static char *link_target(const char *path)
{
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	const char *slash = strrchr(path, '/');

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	if (buf[0] == '/' || !slash)
		return osc_xstrdup(buf);
	return osc_xasprintf("%.*s/%s", (int)(slash - path), path, buf);
}

static enum osc_status output_open(struct output *o, const char *path, unsigned flags,
				    struct osc_error *err)
{
	struct stat sb, lsb;
	bool exists = false;
	mode_t mode;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return OSC_OK;
	}
	o->name = path;
	o->path = osc_xstrdup(path);
	if (!lstat(path, &lsb)) {
		exists = !stat(path, &sb);
		/* A device or pipe (-o /dev/null) is written in place: never renamed over. */
		if (exists && !S_ISREG(sb.st_mode)) {
			o->fp = fopen(path, "w");
			if (!o->fp) {
				io_error(err, path, "cannot write");
				output_close(o, false, NULL);
				return OSC_IO;
			}
			return OSC_OK;
		}
		if (!(flags & OSC_WRITE_REPLACE)) {
			exists_error(err, path);
			output_close(o, false, NULL);
			return OSC_IO;
		}
		o->replace = true;
		/* The link stays: what it points to is replaced (or made, if dangling). */
		for (int hops = 0; hops < 40 && S_ISLNK(lsb.st_mode); hops++) {
			char *to = link_target(o->path);

			if (!to)
				break;
			free(o->path);
			o->path = to;
			if (lstat(o->path, &lsb)) {
				o->replace = false;
				break;
			}
		}
	}
	o->tmp = osc_xasprintf("%s.XXXXXX", o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		io_error(err, path, "cannot write");
		free(o->tmp); /* never unlink a name mkstemp did not create */
		o->tmp = NULL;
		output_close(o, false, NULL);
		return OSC_IO;
	}
	atomic_store(&pending, o->tmp);
	if (exists) {
		mode = sb.st_mode & 07777;
		if (fchown(fd, sb.st_uid, sb.st_gid)) {
			/* Not ours to give away: the file becomes the writer's. */
		}
	} else {
		mode = umask(0);
		umask(mode);
		mode = 0666 & ~mode;
	}
	fchmod(fd, mode);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		close(fd);
		io_error(err, path, "cannot write");
		output_close(o, false, NULL);
		return OSC_IO;
	}
	return OSC_OK;
}

/*
 * The finished temporary file takes o->path: over it when replacing, else
 * only if the name is still free (link() fails if another file took it).
 */
static enum osc_status commit_tmp(struct output *o, struct osc_error *err)
{
	if (o->replace) {
		if (rename(o->tmp, o->path))
			return io_error(err, o->name, "cannot rename the temporary file");
		return OSC_OK;
	}
	if (!link(o->tmp, o->path))
		return OSC_OK; /* output_close removes the temporary name */
	if (errno == EEXIST)
		return exists_error(err, o->name);
	/* No hard links here (some file systems): rename, if the name is still free. */
	if (!access(o->path, F_OK))
		return exists_error(err, o->name);
	if (rename(o->tmp, o->path))
		return io_error(err, o->name, "cannot rename the temporary file");
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
			st = commit ? io_error(err, o->name, "cannot write") : OSC_OK;
		if (o->tmp && commit && st == OSC_OK)
			st = commit_tmp(o, err);
	}
	/* Gone in every case: renamed (a no-op then), linked, or abandoned. */
	if (o->tmp)
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

enum osc_status osc_write_file(const char *path, unsigned flags, osc_writer fn, const void *arg,
			       struct osc_error *err)
{
	struct output out;
	enum osc_status st = output_open(&out, path, flags, err);

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
	struct table_write w = { f, t, m, width, flags & ~OSC_WRITE_REPLACE };

	return osc_write_file(path, flags & OSC_WRITE_REPLACE, write_table, &w, err);
}
