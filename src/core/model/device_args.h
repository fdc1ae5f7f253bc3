/*
 * device_args.h - the args text of a device event from its kernel record and
 * correlation id (private to the core), for traces whose loaders keep no
 * args text for device events (osc_trace.device_args).
 */
#ifndef OPSCOPE_DEVICE_ARGS_H
#define OPSCOPE_DEVICE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/model/trace.h"

/* Bytes osc_device_args may write, its NUL included. */
#define OSC_DEVICE_ARGS_MAX 512

/*
 * Write into buf (OSC_DEVICE_ARGS_MAX bytes) the args of a device event of
 * kind `kind` with kernel record k and correlation id corr, as JSON with a
 * NUL: {"correlation":..,"device":..,"stream":..} then "bytes" (memcpy,
 * memset) or "grid", "block", "registers per thread" and "shared memory"
 * (kernels). Returns its length.
 */
size_t osc_device_args(char *buf, const struct osc_kernel *k, int64_t corr, enum osc_kind kind);

#endif
