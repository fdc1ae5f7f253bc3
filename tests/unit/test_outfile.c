/* test_outfile.c - atomic output files: rename on success, nothing left on failure. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opscope/export/outfile.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/opscope-outfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(outfile, .init = make_dir, .fini = remove_dir);

static enum osc_status write_text(FILE *out, const void *arg, struct osc_error *err)
{
	(void)err;
	fputs(arg, out);
	return OSC_OK;
}

static enum osc_status fail_half_way(FILE *out, const void *arg, struct osc_error *err)
{
	fputs(arg, out);
	return osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL, "disk full");
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(outfile, writes_with_the_umask_mode_and_leaves_no_temporary)
{
	char path[128];
	struct osc_error err;
	struct stat sb;
	mode_t old = umask(022);

	snprintf(path, sizeof(path), "%s/a.csv", dir);
	cr_assert_eq(osc_write_file(path, 0, write_text, "new\n", &err), OSC_OK);
	umask(old);
	cr_expect_str_eq(slurp(path), "new\n");
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_mode & 0777, 0644, "mode %o, not mkstemp's 0600", sb.st_mode & 0777);
	cr_expect_eq(entries(), 1);
}

Test(outfile, a_failed_write_keeps_the_old_file_and_names_it)
{
	char path[128];
	struct osc_error err;

	snprintf(path, sizeof(path), "%s/a.csv", dir);
	cr_assert_eq(osc_write_file(path, 0, write_text, "good\n", &err), OSC_OK);
	cr_assert_eq(osc_write_file(path, OSC_WRITE_REPLACE, fail_half_way, "partial", &err), OSC_IO);
	cr_expect_str_eq(err.subject, path);
	cr_expect_str_eq(slurp(path), "good\n");
	cr_expect_eq(entries(), 1, "the temporary file is removed");
}

Test(outfile, devices_are_written_in_place_and_missing_dirs_fail)
{
	char path[128];
	struct osc_error err;

	cr_expect_eq(osc_write_file("/dev/null", 0, write_text, "x", &err), OSC_OK);
	snprintf(path, sizeof(path), "%s/no/such/dir.csv", dir);
	cr_expect_eq(osc_write_file(path, 0, write_text, "x", &err), OSC_IO);
	cr_expect_str_eq(err.subject, path);
}

Test(outfile, an_existing_file_is_replaced_only_when_asked)
{
	char path[128];
	struct osc_error err;

	snprintf(path, sizeof(path), "%s/a.csv", dir);
	cr_assert_eq(osc_write_file(path, 0, write_text, "first\n", &err), OSC_OK);
	cr_assert_eq(osc_write_file(path, 0, write_text, "second\n", &err), OSC_IO);
	cr_expect_str_eq(err.subject, path);
	cr_expect(strstr(err.message, "exists"), "%s", err.message);
	cr_expect_str_eq(slurp(path), "first\n");
	cr_expect_eq(entries(), 1, "no temporary file left");
	cr_assert_eq(osc_write_file(path, OSC_WRITE_REPLACE, write_text, "second\n", &err), OSC_OK);
	cr_expect_str_eq(slurp(path), "second\n");
	cr_expect_eq(entries(), 1);
}

Test(outfile, a_replaced_file_keeps_its_mode_and_its_symlink)
{
	char path[128], link_path[128];
	struct osc_error err;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/secret.csv", dir);
	snprintf(link_path, sizeof(link_path), "%s/link.csv", dir);
	cr_assert_eq(osc_write_file(path, 0, write_text, "old\n", &err), OSC_OK);
	cr_assert_eq(chmod(path, 0600), 0);
	cr_assert_eq(symlink("secret.csv", link_path), 0);
	cr_assert_eq(osc_write_file(link_path, 0, write_text, "x\n", &err), OSC_IO,
		     "a link to an existing file is an existing file");
	cr_assert_eq(osc_write_file(link_path, OSC_WRITE_REPLACE, write_text, "new\n", &err),
		     OSC_OK);
	cr_assert_eq(lstat(link_path, &sb), 0);
	cr_expect(S_ISLNK(sb.st_mode), "the link stays a link");
	cr_expect_str_eq(slurp(path), "new\n");
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_mode & 0777, 0600, "mode %o, not 0600", sb.st_mode & 0777);
	cr_expect_eq(entries(), 2);
}
