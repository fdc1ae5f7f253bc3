/* rank.c - a trace's rank in its distributed job (rank.h). */
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "opscope/model/rank.h"

const char *osc_rank_source_name(enum osc_rank_source s)
{
	return s == OSC_RANK_DISTRIBUTED_INFO ? "distributedInfo" :
	       s == OSC_RANK_FILE_NAME        ? "file name" :
	       s == OSC_RANK_INPUT_ORDER      ? "input order" :
						"none";
}

bool osc_rank_source_from_name(const char *name, enum osc_rank_source *out)
{
	for (int s = 0; s < OSC_RANK_SOURCE_COUNT; s++) {
		if (!strcmp(name, osc_rank_source_name((enum osc_rank_source)s))) {
			*out = (enum osc_rank_source)s;
			return true;
		}
	}
	return false;
}

/* A whole number from 0 to 2^31 - 1 in member key of o, else -1. */
static int64_t whole(struct json_object *o, const char *key)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	n = json_object_get_int64(v);
	return n >= 0 && n <= INT32_MAX ? n : -1;
}

static void from_meta(const struct osc_trace *t, struct osc_rank *out)
{
	struct json_object *meta, *info, *backend;

	if (!t->meta_json || !*t->meta_json)
		return;
	meta = json_tokener_parse(t->meta_json);
	if (meta && json_object_object_get_ex(meta, "distributedInfo", &info) &&
	    json_object_is_type(info, json_type_object) && whole(info, "rank") >= 0) {
		out->source = OSC_RANK_DISTRIBUTED_INFO;
		out->rank = whole(info, "rank");
		out->world_size = whole(info, "world_size");
		if (out->world_size >= 0 && out->world_size <= out->rank)
			out->world_size = -1; /* not a job this rank is in */
		if (json_object_object_get_ex(info, "backend", &backend) &&
		    json_object_is_type(backend, json_type_string))
			snprintf(out->backend, sizeof(out->backend), "%s",
				 json_object_get_string(backend));
	}
	json_object_put(meta);
}

/* The number right after word (then an optional '-' or '_') at p, or -1. */
static int64_t number_after(const char *p, const char *word)
{
	int64_t n = 0;
	int digits = 0;

	p += strlen(word);
	if (*p == '-' || *p == '_')
		p++;
	for (; isdigit((unsigned char)*p) && digits < 9; p++, digits++)
		n = n * 10 + (*p - '0');
	return digits && !isdigit((unsigned char)*p) ? n : -1;
}

static void from_name(const char *path, struct osc_rank *out)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	static const char *const words[] = { "rank", "worker" };

	base = base ? base + 1 : path;
	for (size_t w = 0; base && w < sizeof(words) / sizeof(words[0]); w++) {
		int64_t rank = -1;

		for (const char *p = base; (p = strstr(p, words[w])); p++) {
			int64_t n = number_after(p, words[w]);

			if (n >= 0)
				rank = n; /* the last in the name wins */
		}
		if (rank >= 0) {
			out->source = OSC_RANK_FILE_NAME;
			out->rank = rank;
			return;
		}
	}
}

void osc_trace_rank(const struct osc_trace *t, const char *path, struct osc_rank *out)
{
	*out = (struct osc_rank){ .source = OSC_RANK_NONE, .rank = -1, .world_size = -1 };
	from_meta(t, out);
	if (out->source == OSC_RANK_NONE)
		from_name(path ? path : t->path, out);
}
