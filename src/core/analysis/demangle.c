/*
 * demangle.c - demangled, mangled and short kernel names.
 *
 * Each distinct device-event name is demangled once, at build time, into a
 * private string table; lookups are then two array reads. An external
 * demangler is one process: the names go to a temporary file that is its
 * standard input, its output is read back line by line (a pipe both ways
 * could deadlock on big traces).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/demangle.h"

static const char *const style_names[] = {
#define OSC_NAME_STYLE_TEXT(name, text) text,
	OSC_NAME_STYLE_LIST(OSC_NAME_STYLE_TEXT)
#undef OSC_NAME_STYLE_TEXT
};

const char *osc_name_style_name(enum osc_name_style s)
{
	return (unsigned)s < OSC_NAME_STYLE_COUNT ? style_names[s] : "unknown";
}

void osc_names_init(struct osc_names *n)
{
	memset(n, 0, sizeof(*n));
	n->style = OSC_NAMES_DEMANGLED;
	osc_strtab_init(&n->strs);
}

void osc_names_release(struct osc_names *n)
{
	osc_strtab_release(&n->strs);
	free(n->full);
	free(n->base);
	free(n->key_full);
	free(n->key_base);
	memset(n, 0, sizeof(*n));
}

char *osc_demangle(const char *name)
{
	/* c++filt's default options, so both demanglers print the same text. */
	char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE);
	char *out;

	if (!d)
		return NULL;
	out = osc_xstrdup(d);
	free(d);
	return out;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Index just past the bracket group opening at s[i] ('<', '(', '[' or '{'). */
static size_t skip_group(const char *s, size_t i)
{
	int depth = 0;

	for (; s[i]; i++) {
		if (strchr("<([{", s[i]))
			depth++;
		else if (strchr(">)]}", s[i]) && --depth == 0)
			return i + 1;
	}
	return i;
}

/* True when '<' at s[i] belongs to an operator name (operator<, operator<<=). */
static bool is_operator_lt(const char *s, size_t i)
{
	while (i > 0 && s[i - 1] == '<')
		i--;
	return i >= 8 && !strncmp(s + i - 8, "operator", 8);
}

char *osc_demangle_base(const char *d)
{
	size_t len = strlen(d), o = 0, i = 0, start = 0;
	char *out = osc_xmalloc(len + 1);
	int paren = 0;

	while (i < len) {
		if (d[i] == '<' && !is_operator_lt(d, i)) {
			i = skip_group(d, i); /* template arguments */
		} else if (d[i] == '(' && starts(d + i, "(anonymous namespace)")) {
			memcpy(out + o, d + i, 21);
			o += 21;
			i += 21;
		} else if (d[i] == '(' && o > 0) {
			break; /* the parameter list: the name ends here */
		} else if (d[i] == '{') {
			size_t end = skip_group(d, i); /* {lambda(int)#1} is part of a name */

			memcpy(out + o, d + i, end - i);
			o += end - i;
			i = end;
		} else {
			out[o++] = d[i++];
		}
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	/* Drop the return type: the text up to the last space outside brackets. */
	for (size_t k = 0; k < o; k++) {
		if (out[k] == '(' || out[k] == '{')
			paren++;
		else if ((out[k] == ')' || out[k] == '}') && paren > 0)
			paren--;
		else if (out[k] == ' ' && !paren && k + 1 < o)
			start = k + 1;
	}
	memmove(out, out + start, o - start + 1);
	return out;
}

/*
 * Heuristic for names that are already demangled C++ (Kineto's CUPTI names):
 * a scope, template arguments or a parameter list (an extern "C" kernel's,
 * ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, ...)).
 */
static bool looks_cpp(const char *s)
{
	return strstr(s, "::") || strchr(s, '<') || strchr(s, '(');
}

/* Record the demangled text d of string id of strs (NULL: not C++). */
static void record(struct osc_names *n, const struct osc_strtab *strs, osc_str id, const char *d,
		   bool kernel)
{
	const char *raw = osc_strtab_get(strs, id);
	char *base;

	if (d && !strcmp(d, raw))
		d = NULL; /* an external demangler echoes what it does not know */
	if (d)
		n->full[id] = osc_strtab_intern(&n->strs, d, strlen(d));
	if (!kernel || !(d || looks_cpp(raw)))
		return;
	base = osc_demangle_base(d ? d : raw);
	if (*base && strcmp(base, raw))
		n->base[id] = osc_strtab_intern(&n->strs, base, strlen(base));
	free(base);
}

/* Mark the distinct names of device events; returns how many. */
static size_t device_names(const struct osc_trace *t, uint8_t *want)
{
	size_t nr = 0;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (!osc_kind_is_device(e->kind) || want[e->name])
			continue;
		want[e->name] = e->kind == OSC_KIND_KERNEL ? 2 : 1;
		nr++;
	}
	return nr;
}

static enum osc_status run_error(struct osc_error *err, const char *cmd, const char *what)
{
	return osc_error_set(err, OSC_IO, "--demangler", OSC_NO_OFFSET, NULL, "'%s': %s", cmd,
			     what);
}

/* Shell-quote s into a new string ('it'\''s'). */
static char *shell_quote(const char *s)
{
	size_t len = 2;
	char *out, *p;

	for (const char *c = s; *c; c++)
		len += *c == '\'' ? 4 : 1;
	p = out = osc_xmalloc(len + 1);
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return out;
}

/* Read one line of any length into *line (without the newline); false at EOF. */
static bool read_line(FILE *f, char **line, size_t *cap)
{
	ssize_t n = getline(line, cap, f);

	if (n < 0)
		return false;
	if (n > 0 && (*line)[n - 1] == '\n')
		(*line)[--n] = '\0';
	return true;
}

static enum osc_status run_command(struct osc_names *n, const struct osc_strtab *strs,
				   const uint8_t *want, const char *cmd, struct osc_error *err)
{
	const char *dir = getenv("TMPDIR");
	char *tmp = osc_xasprintf("%s/opscope-names.XXXXXX", dir && *dir ? dir : "/tmp");
	char *quoted, *shell, *line = NULL;
	size_t cap = 0, got = 0, sent = 0;
	enum osc_status st = OSC_OK;
	int fd = mkstemp(tmp), rc;
	FILE *in, *out;

	if (fd < 0 || !(in = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		free(tmp);
		return run_error(err, cmd, "cannot create a temporary file");
	}
	/* A name with a newline cannot travel one per line: it stays as is. */
	for (size_t id = 0; id < n->nr; id++)
		if (want[id] && !strchr(osc_strtab_get(strs, (osc_str)id), '\n')) {
			fprintf(in, "%s\n", osc_strtab_get(strs, (osc_str)id));
			sent++;
		}
	if (fclose(in)) {
		unlink(tmp);
		free(tmp);
		return run_error(err, cmd, "cannot write a temporary file");
	}
	quoted = shell_quote(tmp);
	shell = osc_xasprintf("%s < %s", cmd, quoted);
	fflush(NULL);
	out = popen(shell, "r");
	for (size_t id = 0; out && id < n->nr; id++) {
		if (!want[id] || strchr(osc_strtab_get(strs, (osc_str)id), '\n'))
			continue;
		if (!read_line(out, &line, &cap))
			break;
		got++;
		record(n, strs, (osc_str)id, line, want[id] == 2);
	}
	while (out && read_line(out, &line, &cap))
		got++; /* extra lines: counted, so the mismatch is reported */
	rc = out ? pclose(out) : -1;
	if (!out || rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc))
		st = run_error(err, cmd, "the command failed");
	else if (got != sent)
		st = osc_error_set(err, OSC_IO, "--demangler", OSC_NO_OFFSET, NULL,
				   "'%s' answered %zu lines for %zu names", cmd, got, sent);
	unlink(tmp);
	free(line);
	free(shell);
	free(quoted);
	free(tmp);
	return st;
}

const char *osc_names_text(const struct osc_names *n, const struct osc_strtab *strs, osc_str id,
			   enum osc_name_style style)
{
	osc_str s = OSC_STR_NONE;

	if (id >= n->nr || style == OSC_NAMES_MANGLED)
		return osc_strtab_get(strs, id);
	if (style == OSC_NAMES_SHORT)
		s = n->base[id];
	if (s == OSC_STR_NONE)
		s = n->full[id];
	return s == OSC_STR_NONE ? osc_strtab_get(strs, id) : osc_strtab_get(&n->strs, s);
}

/*
 * Per trace string id, the least id of a device name shown as the same text
 * in style (ids are met in ascending order: the first of each text is the
 * least); NULL when every name shows its own text.
 */
static osc_str *shown_keys(const struct osc_names *n, const struct osc_strtab *strs,
			   const uint8_t *want, enum osc_name_style style)
{
	osc_str *key = osc_xmalloc((n->nr ? n->nr : 1) * sizeof(*key));
	uint32_t *first = NULL; /* per text (id in texts): the first id shown as it */
	size_t nr_first = 0, first_alloc = 0;
	struct osc_strtab texts;
	bool merged = false;

	osc_strtab_init(&texts);
	for (size_t id = 0; id < n->nr; id++) {
		const char *s;
		osc_str x;

		key[id] = (osc_str)id;
		if (!want[id])
			continue;
		s = osc_names_text(n, strs, (osc_str)id, style);
		x = osc_strtab_intern(&texts, s, strlen(s));
		OSC_GROW(first, (size_t)x + 1, first_alloc);
		while (nr_first <= x)
			first[nr_first++] = UINT32_MAX;
		if (first[x] == UINT32_MAX)
			first[x] = (uint32_t)id;
		key[id] = first[x];
		merged |= key[id] != id;
	}
	free(first);
	osc_strtab_release(&texts);
	if (!merged) {
		free(key);
		return NULL;
	}
	return key;
}

enum osc_status osc_names_in_style(struct osc_names *n, const struct osc_trace *t,
				   enum osc_name_style style, const char *cmd,
				   struct osc_error *err)
{
	n->style = style;
	if (style == OSC_NAMES_MANGLED)
		return OSC_OK;
	return osc_names_build(n, t, cmd, err);
}

enum osc_status osc_names_build(struct osc_names *n, const struct osc_trace *t, const char *cmd,
				struct osc_error *err)
{
	uint8_t *want = osc_xcalloc(t->strs.count ? t->strs.count : 1, 1);
	enum osc_status st;

	device_names(t, want);
	st = osc_names_build_strs(n, &t->strs, want, cmd, err);
	free(want);
	return st;
}

enum osc_status osc_names_build_strs(struct osc_names *n, const struct osc_strtab *strs,
				     const uint8_t *want, const char *cmd, struct osc_error *err)
{
	enum osc_name_style style = n->style;
	enum osc_status st = OSC_OK;

	osc_names_release(n);
	osc_names_init(n);
	n->style = style;
	n->nr = strs->count;
	n->full = osc_xmalloc((n->nr ? n->nr : 1) * sizeof(*n->full));
	n->base = osc_xmalloc((n->nr ? n->nr : 1) * sizeof(*n->base));
	memset(n->full, 0xff, (n->nr ? n->nr : 1) * sizeof(*n->full));
	memset(n->base, 0xff, (n->nr ? n->nr : 1) * sizeof(*n->base));
	if (cmd) {
		st = run_command(n, strs, want, cmd, err);
	} else {
		for (size_t id = 0; id < n->nr; id++) {
			char *d;

			if (!want[id])
				continue;
			d = osc_demangle(osc_strtab_get(strs, (osc_str)id));
			record(n, strs, (osc_str)id, d, want[id] == 2);
			free(d);
		}
	}
	if (st != OSC_OK) { /* half a table would mix styles: show names as they are */
		osc_names_release(n);
		osc_names_init(n);
		n->style = style;
	} else {
		n->key_full = shown_keys(n, strs, want, OSC_NAMES_DEMANGLED);
		n->key_base = shown_keys(n, strs, want, OSC_NAMES_SHORT);
	}
	return st;
}

const char *osc_names_get(const struct osc_names *n, const struct osc_trace *t, osc_str id)
{
	return n ? osc_names_text(n, &t->strs, id, n->style) : osc_trace_str(t, id);
}
