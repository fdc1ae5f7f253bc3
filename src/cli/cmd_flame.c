/*
 * cmd_flame.c - `opscope flame`: the merged host call tree as folded stacks
 * for flame graph tools (flame.h), with tree's options and analysis
 * (cmd_tree.h).
 */
#include "opscope/export/flame.h"
#include "opscope/export/outfile.h"
#include "cli.h"
#include "cmd_tree.h"

static void print_help(void)
{
	puts("usage: opscope flame [OPTIONS] [TRACE]\n"
	     "\n"
	     "Folded stacks of TRACE's host call tree for flame graph tools (flamegraph.pl,\n"
	     "inferno, speedscope): one line 'frame;frame;frame VALUE' per distinct call\n"
	     "path, sorted, over the selected runs. VALUE is in whole microseconds: the\n"
	     "path's self host time, or with --value device the time of the device events\n"
	     "its ops launched themselves (device work of no op under <unattributed>).\n"
	     "Values are rounded so that they add up to the rounded total (report's\n"
	     "host_busy_us or device_time_us); paths that round to 0 are left out. In\n"
	     "frames ';' is written ':', a control or bidi character a space.\n"
	     "\n"
	     "options:");
	osc_cli_tree_print_options(OSC_TREE_MODE_FLAME);
	puts("\n"
	     "Example: opscope flame TRACE | flamegraph.pl > flame.svg\n"
	     "Exit status: 0 on success, 2 on any error.");
}

struct flame_arg {
	const struct osc_flame *f;
};

static enum osc_status write_fn(FILE *out, const void *arg, struct osc_error *err)
{
	const struct flame_arg *a = arg;

	return osc_flame_write(out, a->f, err);
}

static enum osc_status run_flame(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				 struct osc_error *err)
{
	struct osc_flame_opts fo = {
		.value = o->device_value ? OSC_FLAME_DEVICE : OSC_FLAME_HOST,
		.kernels = o->kernel_frames,
		.filter = &o->filter,
		.names = &d->names,
	};
	struct osc_flame f;
	struct flame_arg a = { &f };
	enum osc_status st;

	osc_flame_build(&d->trace, &d->m, &d->corr, &fo, &f);
	st = osc_write_file(o->output, o->export_flags, write_fn, &a, err);
	if (st == OSC_OK)
		fprintf(stderr, "opscope: using %s\n", d->runs_text);
	osc_flame_release(&f);
	return st;
}

int osc_cmd_flame(int argc, char **argv)
{
	return osc_cli_tree_main(argc, argv, OSC_TREE_MODE_FLAME, print_help, run_flame);
}
