/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtracecmd functions that the library exports but declares only in
 * trace-cmd-private.h, which distributions do not ship (Debian 12's
 * libtracecmd-dev has trace-cmd.h alone).  The prototypes are those of
 * libtracecmd 1.3 and have not changed since 1.0.
 */
#ifndef TRACECMD_PRIVATE_H
#define TRACECMD_PRIVATE_H

#include <sys/types.h>
#include <trace-cmd.h>

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

/* CPUs in the capture, and the bytes of one CPU's data (-1: none) */
int tracecmd_cpus(struct tracecmd_input *handle);
off_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
/* The last record of a CPU's data, read from its last page */
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle,
					  int cpu);

#endif
