// SPDX-License-Identifier: GPL-2.0
/*
 * wult deploy, on the controller: what is sent to the SUT. The cache
 * directory of the SUT's release, its kernel headers, wult.ko's sources
 * and their build there (or modules built elsewhere, checked), and the
 * static wult.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "cmds.h"
#include "deploy.h"

/* Whether the ELF file @path has no program interpreter (statically linked). */
static int is_static(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i, ret = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type == PT_INTERP)
			goto out;
	}
	ret = 1;
out:
	close(fd);
	return ret;
}

/* The release a module was built for: the first word of its vermagic. 0 or -1. */
static int ko_release(const char *path, char *rel, size_t size)
{
	static const char key[] = "vermagic=";
	FILE *f = fopen(path, "re");
	char *buf = NULL, *p;
	size_t n = 0, cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap ? 2 * cap : 1 << 20);

			if (!nb)
				goto out;
			buf = nb;
			cap = cap ? 2 * cap : 1 << 20;
		}
		size_t k = fread(buf + n, 1, cap - n, f);

		if (!k)
			break;
		n += k;
	}
	p = memmem(buf, n, key, sizeof(key) - 1);
	if (p) {
		size_t l;

		p += sizeof(key) - 1;
		l = strnlen(p, buf + n - p);
		l = strcspn(p, " ") < l ? strcspn(p, " ") : l;
		if (l && l < size) {
			memcpy(rel, p, l);
			rel[l] = '\0';
			ret = 0;
		}
	}
out:
	free(buf);
	fclose(f);
	return ret;
}

/*
 * Whether the headers in @dir are those of @rel: the release they stamp
 * into modules' vermagic, include/generated/utsrelease.h's UTS_RELEASE
 * (Debian's 6.1 headers say the upstream version in kernel.release).
 */
static int headers_of(const char *dir, const char *rel, char *found, size_t size)
{
	char p[DEP_PLEN], line[256], *q, *e;

	found[0] = '\0';
	dep_pathf(p, sizeof(p), "%s/Makefile", dir);
	if (!dep_is_file(p))
		return 0;
	dep_pathf(p, sizeof(p), "%s/include/generated/utsrelease.h", dir);
	if (dep_read_line(p, line, sizeof(line)))
		return 0;
	q = strchr(line, '"');
	e = q ? strchr(q + 1, '"') : NULL;
	if (!e || (size_t)(e - q) > size)
		return 0;
	memcpy(found, q + 1, e - q - 1);
	found[e - q - 1] = '\0';
	return !strcmp(found, rel);
}

/* Step 2's input: the SUT's kernel headers here. 0, or -1 (said). */
int dep_headers_find(struct deploy *d)
{
	const char *roots[] = { "%s/../kernels", "%s/../src/build/kernels" };
	char cand[DEP_PLEN], found[128], found_path[PATH_MAX];
	size_t i;

	if (d->kernel_src) {
		if (!dep_is_dir(d->kernel_src)) {
			fprintf(stderr, DEP_CMD ": --kernel-src %s: no such directory\n",
				d->kernel_src);
			return -1;
		}
		if (!headers_of(d->kernel_src, d->rel, found, sizeof(found))) {
			if (found[0])
				fprintf(stderr, DEP_CMD ": --kernel-src %s: the headers of %s, not of "
					"%s (the kernel %s runs)\n", d->kernel_src, found,
					d->rel, d->sh.spec);
			else
				fprintf(stderr, DEP_CMD ": --kernel-src %s: no kernel build directory "
					"(no Makefile and include/generated/utsrelease.h)\n",
					d->kernel_src);
			return -1;
		}
		dep_pathf(d->kdir, sizeof(d->kdir), "%s", d->kernel_src);
		return 0;
	}
	dep_pathf(cand, sizeof(cand), "/lib/modules/%s/build", d->rel);
	if (headers_of(cand, d->rel, found, sizeof(found)))
		goto got;
	dep_pathf(cand, sizeof(cand), "/usr/src/linux-headers-%s", d->rel);
	if (headers_of(cand, d->rel, found, sizeof(found)))
		goto got;
	/* The trees scripts/kpkg unpacked beside this build. */
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) + 1; i++) {
		char pat[DEP_PLEN];
		glob_t g;

		if (i < sizeof(roots) / sizeof(roots[0]))
			dep_pathf(cand, sizeof(cand), roots[i], d->exe_dir);
		else if (getenv("WULT_KERNELS"))
			dep_pathf(cand, sizeof(cand), "%s", getenv("WULT_KERNELS"));
		else
			continue;
		dep_pathf(pat, sizeof(pat), "%s/*/usr/src/linux-headers-%s", cand, d->rel);
		if (glob(pat, 0, NULL, &g))
			continue;
		if (g.gl_pathc && headers_of(g.gl_pathv[0], d->rel, found, sizeof(found))) {
			dep_pathf(cand, sizeof(cand), "%s", g.gl_pathv[0]);
			globfree(&g);
			goto got;
		}
		globfree(&g);
	}
	fprintf(stderr, DEP_CMD ": %s runs Linux %s, and this system has no headers for it "
		"(/lib/modules/%s/build, /usr/src/linux-headers-%s): install Debian's "
		"linux-headers-%s here (apt-get install linux-headers-%s), or give "
		"--kernel-src DIR, or --modules DIR with wult.ko built for it\n",
		d->sh.spec, d->rel, d->rel, d->rel, d->rel, d->rel);
	return -1;
got:
	if (!realpath(cand, found_path))
		dep_pathf(found_path, sizeof(found_path), "%s", cand);
	return dep_pathf(d->kdir, sizeof(d->kdir), "%s", found_path);
}

/* wult.ko's sources: the checkout this wult was built from, or make dkms-src's copy. */
int dep_src_find(struct deploy *d)
{
	const char *cands[] = { "%s/../src/kernel", "%s/../../kernel" };
	char p[DEP_PLEN], k[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]) + 1; i++) {
		if (i < sizeof(cands) / sizeof(cands[0]))
			dep_pathf(p, sizeof(p), cands[i], d->exe_dir);
		else
			dep_pathf(p, sizeof(p), "/usr/src/wult-%s", WULT_VERSION);
		dep_pathf(k, sizeof(k), "%s/Kbuild", p);
		if (dep_is_file(k) && realpath(p, k) && !dep_pathf(d->ksrc, sizeof(d->ksrc), "%s", k))
			return 0;
	}
	fprintf(stderr, DEP_CMD ": wult.ko's sources not found (beside this wult's build, or "
		"/usr/src/wult-%s from `make dkms-src`): run the wult of a built checkout, "
		"or give --modules DIR\n", WULT_VERSION);
	return -1;
}

/* The wult to send: a static one, which runs on any Linux of this architecture. */
int dep_wult_find(struct deploy *d)
{
	const char *cands[] = { "%s/wult-static", "%s/../lib/wult/wult-static" };
	char exe[DEP_PLEN];
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		dep_pathf(d->wult, sizeof(d->wult), cands[i], d->exe_dir);
		if (dep_is_file(d->wult) && is_static(d->wult))
			return 0;
	}
	dep_pathf(exe, sizeof(exe), "%s/wult", d->exe_dir);
	if (is_static(exe)) {
		dep_pathf(d->wult, sizeof(d->wult), "%s", exe);
		return 0;
	}
	fprintf(stderr, DEP_CMD ": no static wult to send (%s/wult-static; `make` builds it "
		"beside wult)\n", d->exe_dir);
	return -1;
}

/*
 * This release's directory in the cache: CACHE/wult/deploy/REL, held
 * (WORK/.lock, until we exit) so that two deploys of one release, to two
 * SUTs, take turns at its build and its staged files. 0 or -1 (said).
 */
int dep_work_set(struct deploy *d)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char lock[DEP_PLEN];
	int fd;

	if (cache && *cache == '/')
		dep_pathf(d->work, sizeof(d->work), "%s/wult/deploy/%s", cache, d->rel);
	else if (home && *home == '/')
		dep_pathf(d->work, sizeof(d->work), "%s/.cache/wult/deploy/%s", home, d->rel);
	if (!d->work[0]) {
		fprintf(stderr, DEP_CMD ": no cache directory: set HOME or XDG_CACHE_HOME "
			"(an absolute path, not too long)\n");
		return -1;
	}
	if (d->dry_run)
		return 0;
	dep_pathf(lock, sizeof(lock), "%s/.lock", d->work);
	if (dep_mkdirs(d->work) ||
	    (fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, DEP_CMD ": cannot create %s: %s\n", lock, strerror(errno));
		return -1;
	}
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	fprintf(stderr, DEP_CMD ": waiting for another wult deploy of %s (%s)\n", d->rel, lock);
	if (flock(fd, LOCK_EX)) {
		fprintf(stderr, DEP_CMD ": %s: %s\n", lock, strerror(errno));
		return -1;
	}
	return 0;
}

/* The source file names under the tree nftw() walks (same_files()). */
static char *files_buf;
static size_t files_len, files_cap;
static size_t files_root;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t l = strlen(path + files_root) + 1;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (files_len + l + 1 > files_cap) {
		size_t cap = (files_len + l + 1) * 2;
		char *nb = realloc(files_buf, cap);

		if (!nb)
			return -1;
		files_buf = nb;
		files_cap = cap;
	}
	memcpy(files_buf + files_len, path + files_root, l - 1);
	files_buf[files_len + l - 1] = '\n';
	files_len += l;
	files_buf[files_len] = '\0';
	return 0;
}

/*
 * Whether @src holds the same file names as when @work's copy was made
 * (the list kept in WORK/sources); the list is rewritten for this copy.
 * 1 same, 0 different or first, -1 error.
 */
static int same_files(const char *src, const char *work)
{
	char lp[DEP_PLEN], *old = NULL;
	size_t oldlen = 0;
	FILE *f;
	int ret;

	files_len = 0;
	files_root = strlen(src);
	if (nftw(src, add_file, 16, FTW_PHYS) || !files_buf)
		return -1;
	dep_pathf(lp, sizeof(lp), "%s/sources", work);
	f = fopen(lp, "re");
	if (f) {
		ssize_t n = getdelim(&old, &oldlen, '\0', f);

		ret = n >= 0 && (size_t)n == files_len && !memcmp(old, files_buf, n);
		fclose(f);
		free(old);
	} else {
		ret = 0;
	}
	if (!ret) {
		f = dep_mkdirs(work) ? NULL : fopen(lp, "we");
		if (!f)
			ret = -1;
		else if ((fwrite(files_buf, 1, files_len, f) != files_len) | fclose(f))
			ret = -1;
	}
	free(files_buf);
	files_buf = NULL;
	files_cap = 0;
	return ret;
}

/* Step 2: the modules, built here for the SUT's release. 0, or -1 (said). */
int dep_modules_build(struct deploy *d)
{
	char src[DEP_PLEN], mdir[DEP_PLEN], mm[DEP_PLEN];
	char *cp[] = { "cp", "-a", src, mdir, NULL };
	char *mk[] = { "make", "-s", "-C", d->kdir, mm, "W=1", "modules", NULL };
	char rel[128];

	dep_pathf(src, sizeof(src), "%s/.", d->ksrc);
	dep_pathf(mdir, sizeof(mdir), "%s/kernel", d->work);
	dep_pathf(mm, sizeof(mm), "M=%s", mdir);
	dep_pathf(d->kos, sizeof(d->kos), "%s", mdir);
	fprintf(stderr, DEP_CMD ": building wult.ko%s for %s in %s, against %s\n",
		d->refidle ? " and wult_refidle.ko" : "", d->rel, mdir, d->kdir);
	if (d->dry_run) {
		fprintf(stderr, "    mkdir -p %s\n", mdir);
		dep_say_cmd(cp);
		dep_say_cmd(mk);
		return 0;
	}
	/*
	 * A copy keeps the sources' times: make rebuilds only what changed.
	 * When files were added, moved or removed since the last copy, the
	 * copy starts afresh, so that no stale header is found by a path.
	 */
	if (same_files(d->ksrc, d->work) <= 0) {
		char *rm[] = { "rm", "-rf", mdir, NULL };

		if (dep_run(rm, 0)) {
			fprintf(stderr, DEP_CMD ": cannot remove %s\n", mdir);
			return -1;
		}
	}
	if (dep_mkdirs(mdir)) {
		fprintf(stderr, DEP_CMD ": cannot create %s: %s\n", mdir, strerror(errno));
		return -1;
	}
	if (dep_run(cp, 0)) {
		fprintf(stderr, DEP_CMD ": cannot copy %s to %s\n", d->ksrc, mdir);
		return -1;
	}
	if (dep_run(mk, 1)) {
		fprintf(stderr, DEP_CMD ": building the modules for %s failed (make -C %s %s, "
			"above)\n", d->rel, d->kdir, mm);
		return -1;
	}
	dep_pathf(mm, sizeof(mm), "%s/wult.ko", mdir);
	if (ko_release(mm, rel, sizeof(rel)) || strcmp(rel, d->rel)) {
		fprintf(stderr, DEP_CMD ": %s is not a module for %s\n", mm, d->rel);
		return -1;
	}
	return 0;
}

/* --modules: built elsewhere, for the SUT's release. 0, or -1 (said). */
int dep_modules_check(struct deploy *d)
{
	const char *names[] = { "wult", "wult_refidle" };
	char p[DEP_PLEN], rel[128];
	int i;

	dep_pathf(d->kos, sizeof(d->kos), "%s", d->modules);
	for (i = 0; i < 1 + d->refidle; i++) {
		dep_pathf(p, sizeof(p), "%s/%s.ko", d->modules, names[i]);
		if (!dep_is_file(p)) {
			fprintf(stderr, DEP_CMD ": --modules %s: no %s.ko there\n", d->modules,
				names[i]);
			return -1;
		}
		if (ko_release(p, rel, sizeof(rel))) {
			fprintf(stderr, DEP_CMD ": %s: not a kernel module (no vermagic)\n", p);
			return -1;
		}
		if (strcmp(rel, d->rel)) {
			fprintf(stderr, DEP_CMD ": %s was built for %s; %s runs %s\n", p, rel,
				d->sh.spec, d->rel);
			return -1;
		}
	}
	fprintf(stderr, DEP_CMD ": sending the modules of %s (built for %s)\n", d->modules, d->rel);
	return 0;
}
