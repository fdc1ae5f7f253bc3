/*
 * sqlite_ids.c - Nsight Systems' StringIds table read once: the id -> text
 * map that every name column refers to, so rows are read without a join
 * per row and each text is interned on its first use only.
 *
 * Limits:
 * - The table's text is held in memory while loading (it is small: the
 *   distinct names of the capture).
 * - Only integer ids match (a JOIN would also match '5' to 5); of rows
 *   repeating an id (a table without its primary key) the first is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "load/sqlite_db.h"

enum { ID_NEW, ID_OK, ID_BAD_UTF8, ID_NULL };

struct sq_id {
	int64_t id;
	uint32_t off, len; /* text in sq_ids.text */
	osc_str str;       /* interned on first use */
	uint8_t state;     /* ID_* */
	bool used;         /* the slot holds an id */
};

static size_t id_slot(const struct sq_ids *m, int64_t id)
{
	size_t mask = m->size - 1;
	size_t i = (size_t)(((uint64_t)id * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (m->v[i].used && m->v[i].id != id)
		i = (i + 1) & mask;
	return i;
}

static void ids_grow(struct sq_ids *m)
{
	struct sq_id *old = m->v;
	size_t old_size = m->size;

	m->size = old_size ? old_size * 2 : 256;
	m->v = osc_xcalloc(m->size, sizeof(*m->v));
	for (size_t i = 0; i < old_size; i++)
		if (old[i].used)
			m->v[id_slot(m, old[i].id)] = old[i];
	free(old);
}

enum osc_status sq_ids_load(struct sq *q)
{
	struct sq_ids *m = &q->ids;
	sqlite3_stmt *st = sq_prepare(q, "StringIds", "SELECT id, value FROM StringIds");
	int rc;

	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, "StringIds")) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1), i;

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			continue;
		if (2 * (m->used + 1) > m->size)
			ids_grow(m);
		i = id_slot(m, sqlite3_column_int64(st, 0));
		if (m->v[i].used || len > UINT32_MAX - m->text_len)
			continue;
		m->v[i] = (struct sq_id){ .id = sqlite3_column_int64(st, 0), .used = true,
					  .off = (uint32_t)m->text_len, .len = (uint32_t)len,
					  .state = s ? ID_NEW : ID_NULL };
		m->used++;
		OSC_GROW(m->text, m->text_len + len, m->text_alloc);
		if (len)
			memcpy(m->text + m->text_len, s, len);
		m->text_len += len;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? OSC_OK : q->lc->err->code;
}

bool sq_id_str(struct sq *q, sqlite3_stmt *st, int col, osc_str *out)
{
	struct sq_ids *m = &q->ids;
	struct sq_id *e;

	if (!m->size || sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return false;
	e = &m->v[id_slot(m, sqlite3_column_int64(st, col))];
	if (!e->used || e->state == ID_NULL)
		return false;
	if (e->state == ID_NEW) {
		uint64_t bad = q->t->warnings[OSC_WARN_BAD_UTF8].count;

		e->str = sq_intern(q, m->text + e->off, e->len);
		e->state = q->t->warnings[OSC_WARN_BAD_UTF8].count != bad ? ID_BAD_UTF8 : ID_OK;
	} else if (e->state == ID_BAD_UTF8) {
		/* counted once per row, as interning the row's text would */
		osc_trace_warn(q->t, OSC_WARN_BAD_UTF8, OSC_NO_OFFSET);
	}
	*out = e->str;
	return true;
}

void sq_ids_release(struct sq_ids *m)
{
	free(m->v);
	free(m->text);
	*m = (struct sq_ids){ 0 };
}
