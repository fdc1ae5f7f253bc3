/*
 * libraries.c - the libraries of this build and their run-time versions
 * (what the loaded shared objects say, not the headers built against).
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json_c_version.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <sqlite3.h>
#include <zlib.h>
#ifdef OPSCOPE_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef OPSCOPE_HAVE_ISAL
#include <isa-l.h>
#endif

#include "opscope/load/load.h"

static void set(struct osc_library *l, const char *name, const char *version, const char *reads)
{
	l->name = name;
	/* the first word: PCRE2 adds its release date */
	snprintf(l->version, sizeof(l->version), "%.*s", (int)strcspn(version, " "), version);
	l->reads = reads;
	l->without = "refused: built without it";
}

void osc_load_libraries(struct osc_library out[OSC_NR_LIBRARIES])
{
	char pcre2[64] = "";

	pcre2_config(PCRE2_CONFIG_VERSION, pcre2);
	set(&out[0], "json-c", json_c_version(), "JSON traces");
	set(&out[1], "PCRE2", pcre2, "--regex");
	set(&out[2], "zlib", zlibVersion(), "gzip traces");
#ifdef OPSCOPE_HAVE_ZSTD
	set(&out[3], "zstd", ZSTD_versionString(), "zstd traces");
#else
	set(&out[3], "zstd", "", "zstd traces");
#endif
	set(&out[4], "SQLite", sqlite3_libversion(), "nvprof and Nsight Systems databases");
	/* ISA-L has no run-time version call: the headers' */
#ifdef OPSCOPE_HAVE_ISAL
	char isal[32];

	snprintf(isal, sizeof(isal), "%d.%d.%d", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION,
		 ISAL_PATCH_VERSION);
	set(&out[5], "ISA-L", isal, "gzip traces, inflated faster");
#else
	set(&out[5], "ISA-L", "", "gzip traces, inflated faster");
#endif
	out[5].without = "zlib inflates: built without it";
}
