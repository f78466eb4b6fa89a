/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record -H (record_remote.c): record on other systems over ssh, each
 * one's perf.data written here as it comes.
 */
#ifndef WULT_RECORD_REMOTE_H
#define WULT_RECORD_REMOTE_H

#include "record_opts.h"

/*
 * Runs `wult record -o -` with @argv's options but -o, -H and --ssh-opts
 * on every host of @o->hosts at once and stores each stream. The exit
 * status: 0 when every host recorded, 1 when one failed (said, naming
 * it), 2 for a usage error.
 */
int rec_remote_run(const struct rec_opts *o, int argc, char **argv);

#endif
