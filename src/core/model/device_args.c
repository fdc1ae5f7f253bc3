/* device_args.c - a device event's args from its kernel record (device_args.h). */
#include <string.h>

#include "model/device_args.h"

/* Append s (a literal) at p. */
#define PUT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Append v in decimal at p (at most 20 bytes); return the end. */
static char *put_int(char *p, int64_t v)
{
	char tmp[20];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	size_t n = 0;

	if (v < 0)
		*p++ = '-';
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	while (n)
		*p++ = tmp[--n];
	return p;
}

size_t osc_device_args(char *buf, const struct osc_kernel *k, int64_t corr, enum osc_kind kind)
{
	char *p = buf;

	p = put_int(PUT(p, "{\"correlation\":"), corr);
	p = put_int(PUT(p, ",\"device\":"), k->device);
	p = put_int(PUT(p, ",\"stream\":"), k->stream);
	if (kind != OSC_KIND_KERNEL) {
		p = put_int(PUT(p, ",\"bytes\":"), k->bytes);
	} else {
		for (int i = 0; i < 2; i++) {
			const int32_t *v = i ? k->block : k->grid;

			p = put_int(i ? PUT(p, ",\"block\":[") : PUT(p, ",\"grid\":["), v[0]);
			p = put_int(PUT(p, ","), v[1]);
			p = put_int(PUT(p, ","), v[2]);
			*p++ = ']';
		}
		p = put_int(PUT(p, ",\"registers per thread\":"), k->registers);
		p = put_int(PUT(p, ",\"shared memory\":"), k->shared_mem);
	}
	*p++ = '}';
	*p = '\0';
	return (size_t)(p - buf);
}
