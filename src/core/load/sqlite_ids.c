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
	uint32_t off, len; /* text in sq_ids.text */
	osc_str str;       /* interned on first use */
	uint8_t state;     /* ID_* */
};

enum osc_status sq_ids_load(struct sq *q)
{
	struct sq_ids *m = &q->ids;
	sqlite3_stmt *st = sq_prepare(q, "StringIds", "SELECT id, value FROM StringIds");
	int rc;

	if (!st)
		return q->lc->err->code;
	while ((rc = sq_step(q, st, "StringIds")) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		uint32_t *entry;

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || len > UINT32_MAX - m->text_len ||
		    m->nr >= OSC_I64MAP_EMPTY)
			continue;
		entry = osc_i64map_slot(&m->index, sqlite3_column_int64(st, 0));
		if (*entry != OSC_I64MAP_EMPTY)
			continue;
		*entry = (uint32_t)m->nr;
		OSC_GROW(m->v, m->nr + 1, m->alloc);
		m->v[m->nr++] = (struct sq_id){ .off = (uint32_t)m->text_len, .len = (uint32_t)len,
						.state = s ? ID_NEW : ID_NULL };
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
	return sqlite3_column_type(st, col) == SQLITE_INTEGER &&
	       sq_id_lookup(q, sqlite3_column_int64(st, col), out);
}

bool sq_id_lookup(struct sq *q, int64_t id, osc_str *out)
{
	struct sq_ids *m = &q->ids;
	struct sq_id *e;
	uint32_t i = osc_i64map_get(&m->index, id);

	if (i == OSC_I64MAP_EMPTY)
		return false;
	e = &m->v[i];
	if (e->state == ID_NULL)
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
	osc_i64map_release(&m->index);
	free(m->v);
	free(m->text);
	*m = (struct sq_ids){ 0 };
}
