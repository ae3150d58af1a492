// SPDX-License-Identifier: GPL-2.0
/*
 * A workaround for libtracecmd before 1.5.1, written for 1.3.1 (Debian
 * 12's); the Makefile builds it only for such a library.
 *
 * Reading a compressed capture in memory, libtracecmd before 1.5.0 keeps
 * every chunk it decompresses on a list that it walks for each page
 * (upstream 5274db32, "Use an rbtree for mapping of cache pages"), and
 * 1.5.0 never frees them (1571b67c, "Fix free_zpage() offset", in
 * 1.5.1): time grows quadratically and memory linearly with the capture.
 * Here the capture is decompressed once, whole, each CPU's data into a
 * file of the library's own, which it then reads in linear time.  That
 * takes an unexported function (tracecmd_copy()) for a side effect, a
 * constant of the private header, and clean-up behind the library's back,
 * none of which a fixed library needs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtracecmd-workaround.h"

struct tracecmd_output;

/* TRACECMD_FILE_CPU_FLYRECORD: a copy up to and including the CPU data */
#define TRACECMD_FILE_ALL_DATA 11

/* 0 and the name for a compressed capture; -1 when not compressed */
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle,
				     const char **name, const char **version);
/* @ihandle from tracecmd_open_head(); "none" writes it uncompressed */
struct tracecmd_output *tracecmd_copy(struct tracecmd_input *ihandle,
				      const char *file, int state,
				      int file_version, const char *compression);
void tracecmd_output_close(struct tracecmd_output *handle);

/*
 * libtracecmd decompresses each CPU's data into a file of its own, named
 * by it (COMPR_TEMP_FILE) and removed only by tracecmd_close().  Where a
 * handle must be left open (see below), its files are removed here: they
 * are the ones this process holds open under that name.
 */
static void remove_library_files(void)
{
	static const char prefix[] = "/tmp/trace_cpu_data";
	char link[300], path[4096];
	struct dirent *e;
	ssize_t n;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		if (!strncmp(path, prefix, sizeof(prefix) - 1) &&
		    !strstr(path, " (deleted)"))
			unlink(path);
	}
	closedir(d);
}

/*
 * tracecmd_copy() first sets its input up to read each CPU's data from a
 * decompressed file, then copies the data out: copied into /dev/null,
 * that input is the handle to read.  A failed copy unlinks its output, so
 * it writes through a link of our own, in a directory of our own, never
 * the device's name.  A capture that cannot be decompressed whole is read
 * the plain way, where the damaged chunk shows as a stream that ends early.
 */
struct tracecmd_input *workaround_decompressed(const char *file, char *err,
					       size_t errlen)
{
	const char *tmpdir = getenv("TMPDIR"), *name, *version;
	struct tracecmd_output *out = NULL;
	struct tracecmd_input *head;
	char dir[4096], sink[4200];

	head = tracecmd_open_head(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!head)
		return NULL;
	if (tracecmd_get_file_compress_proto(head, &name, &version)) {
		tracecmd_close(head);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s/memcg-tier-report.XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir) || (snprintf(sink, sizeof(sink), "%s/sink", dir),
			      symlink("/dev/null", sink))) {
		snprintf(err, errlen, "cannot make a directory for decompressing the capture in %s: %s",
			 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
		rmdir(dir);
		tracecmd_close(head);
		return NULL;
	}
	out = tracecmd_copy(head, sink, TRACECMD_FILE_ALL_DATA, 7, "none");
	unlink(sink);
	rmdir(dir);
	if (out) {
		tracecmd_output_close(out);
		return head;
	}
	/*
	 * After a failed copy libtracecmd 1.3 crashes in tracecmd_close() of
	 * its input: that handle is left to the end of the process.
	 */
	remove_library_files();
	return NULL;
}
