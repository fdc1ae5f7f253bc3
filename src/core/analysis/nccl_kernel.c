/* nccl_kernel.c - algorithm and protocol from an NCCL/RCCL kernel's name (nccl_kernel.h). */
#include <string.h>

#include "opscope/analysis/nccl_kernel.h"

/* Longest first where one is a prefix of another (NVLS_TREE before NVLS). */
static const char *const algorithms[] = {
	"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "TREE", "RING", "PAT",
};
static const char *const protocols[] = { "LL128", "LL", "SIMPLE" };
/* NCCL up to 2.18, and from 2.19 (RCCL likewise). */
static const char *const prefixes[] = { "ncclKernel_", "ncclDevKernel_" };

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* The name's end: its "(" or its NUL. */
static const char *name_end(const char *p)
{
	const char *paren = strchr(p, '(');

	return paren ? paren : p + strlen(p);
}

/* After word when it is the whole '_'-separated token(s) at p (then end or '_'), else NULL. */
static const char *token(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - p) < n || memcmp(p, word, n) || (p + n < end && p[n] != '_'))
		return NULL;
	return p + n;
}

/* The first of words[0 .. nr) that is the token(s) at p, NULL if none; *next after it. */
static const char *match(const char *p, const char *end, const char *const *words, size_t nr,
			 const char **next)
{
	for (size_t i = 0; i < nr; i++)
		if ((*next = token(p, end, words[i])))
			return words[i];
	return NULL;
}

bool osc_nccl_kernel_parse(const char *name, struct osc_nccl_kernel *out)
{
	const char *p = name ? name : "", *end;
	size_t i = 0;

	out->algorithm = out->protocol = "";
	while (i < NR(prefixes) && strncmp(p, prefixes[i], strlen(prefixes[i])))
		i++;
	if (i == NR(prefixes))
		return false;
	p += strlen(prefixes[i]);
	end = name_end(p);
	if (p == end || *p == '_')
		return false; /* no collective */
	/* after the collective, the first ALGO_PROTO pair of whole tokens */
	while ((p = memchr(p, '_', (size_t)(end - p)))) {
		const char *after, *next, *algo, *proto;

		p++;
		algo = match(p, end, algorithms, NR(algorithms), &after);
		if (!algo || after == end)
			continue;
		proto = match(after + 1, end, protocols, NR(protocols), &next);
		if (proto) {
			out->algorithm = algo;
			out->protocol = proto;
			break;
		}
	}
	return true;
}

const char *osc_nccl_merge(const char *acc, const char *v)
{
	if (!acc)
		return v;
	return strcmp(acc, v) ? OSC_NCCL_MIXED : acc;
}

void osc_nccl_take(struct osc_nccl_kernel *acc, const char *name)
{
	struct osc_nccl_kernel k;

	if (!osc_nccl_kernel_parse(name, &k))
		return;
	acc->algorithm = osc_nccl_merge(acc->algorithm, k.algorithm);
	acc->protocol = osc_nccl_merge(acc->protocol, k.protocol);
}
