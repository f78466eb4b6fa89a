/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult deploy's pieces (the steps, in order, are cmd_deploy.c's):
 * deploy_build.c what is sent, found or built here (the SUT kernel's
 * headers, wult.ko's sources, the module build in the cache, the static
 * wult); deploy_sut.c what is asked of and done on the SUT over ssh;
 * deploy_util.c the small file and process helpers they share.
 */
#ifndef WULT_DEPLOY_H
#define WULT_DEPLOY_H

#include <stddef.h>

#include "ssh/ssh.h"

#define DEP_CMD		"wult deploy"
/* Directories held in struct deploy, and paths made of them and a name. */
#define DEP_PDIR	2048
#define DEP_PLEN	4096

struct deploy {
	struct ssh_host sh;
	const char *ssh_opts, *kernel_src, *modules, *prefix;
	int refidle, keep_loaded, dry_run;
	char rel[128], arch[64];		/* the SUT's uname -r, -m */
	char exe_dir[DEP_PDIR];			/* where this wult runs from */
	char kdir[DEP_PDIR];			/* the SUT kernel's headers (build) */
	char ksrc[DEP_PDIR];			/* wult.ko's sources */
	char work[DEP_PDIR];			/* CACHE/wult/deploy/REL */
	char kos[DEP_PDIR];			/* the modules to send are here */
	char wult[DEP_PDIR];			/* the static wult to send */
};

/* deploy_util.c */
__attribute__((format(printf, 3, 4)))
int dep_pathf(char *buf, size_t size, const char *fmt, ...);
int dep_run(char **av, int quiet);
int dep_is_dir(const char *p);
int dep_is_file(const char *p);
int dep_read_line(const char *path, char *buf, size_t size);
void dep_say_cmd(char **av);
int dep_mkdirs(const char *path);

/* deploy_build.c: each 0, or -1 after saying why. */
int dep_work_set(struct deploy *d);
int dep_headers_find(struct deploy *d);
int dep_src_find(struct deploy *d);
int dep_wult_find(struct deploy *d);
int dep_modules_build(struct deploy *d);
int dep_modules_check(struct deploy *d);

/* deploy_sut.c: each 0, or -1 after saying why. */
int dep_sut_ask(struct deploy *d);
int dep_sut_install(struct deploy *d);

#endif
