/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the capture reader needs of libtracecmd beyond its public header,
 * all in one place.
 *
 * Functions the library exports but declares only in trace-cmd-private.h,
 * which distributions do not ship (Debian 12's libtracecmd-dev has
 * trace-cmd.h alone; they are still private in 1.5.5).  The prototypes
 * are those of 1.3.1 and have not changed since 1.0.
 *
 * And, before libtracecmd 1.5.1 only (the Makefile decides, from
 * pkg-config's version), the decompression workaround of
 * libtracecmd-workaround.c.
 */
#ifndef LIBTRACECMD_WORKAROUND_H
#define LIBTRACECMD_WORKAROUND_H

#include <stddef.h>
#include <sys/types.h>
#include <trace-cmd.h>

/* CPUs in the capture, and the bytes of one CPU's data (-1: none) */
int tracecmd_cpus(struct tracecmd_input *handle);
off_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
/* The last record of a CPU's data, read from its last page */
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle,
					  int cpu);

/*
 * A compressed capture, decompressed whole into libtracecmd's own files
 * and ready to read; NULL with err empty when it is not compressed, cannot
 * be decompressed whole, or the library reads it well by itself (then the
 * caller opens it the plain way), NULL with err set on a real error.
 * Quiet stderr around it: the library prints where the data went.
 */
#ifdef LIBTRACECMD_WORKAROUND
struct tracecmd_input *workaround_decompressed(const char *file, char *err,
					       size_t errlen);
#else
static inline struct tracecmd_input *
workaround_decompressed(const char *file, char *err, size_t errlen)
{
	(void)file;
	(void)err;
	(void)errlen;
	return NULL;
}
#endif

#endif
