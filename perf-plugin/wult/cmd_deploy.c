// SPDX-License-Identifier: GPL-2.0
/*
 * wult deploy -H [USER@]HOST[:PORT]: make a system under test (SUT) ready
 * for `wult record -H`, from this one (the controller), over the user's
 * ssh (ssh/ssh.c, as wult record -H). The steps, in order:
 *
 *   1. ask the SUT for its kernel release and architecture (uname);
 *   2. build wult.ko (and wult_refidle.ko with --refidle) for that release
 *      here, against its headers (--kernel-src, /lib/modules/REL/build,
 *      /usr/src/linux-headers-REL or a tree scripts/kpkg unpacked), in
 *      CACHE/wult/deploy/REL, or take them built (--modules DIR, their
 *      vermagic checked);
 *   3. send the modules and the static wult (BUILD/rel/wult-static: it
 *      needs no library there) as one tar stream to a sh script on the SUT
 *      (install_script below), which installs them where they differ
 *      (/lib/modules/REL/updates/wult, PREFIX/bin/wult), runs depmod, loads
 *      wult.ko, checks that wult records through its PMU, and unloads it
 *      again unless --keep-loaded or it was loaded before.
 *
 * Nothing is built or installed twice: make rebuilds what changed, the SUT
 * replaces only files whose bytes differ. --dry-run says the steps.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>	/* optind */
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "cmds.h"
#include "opts.h"
#include "ssh/ssh.h"

#define CMD	"wult deploy"
/* Directories we hold, and paths made of them with a file name. */
#define PDIR	2048
#define PLEN	4096

struct dep {
	struct ssh_host sh;
	const char *ssh_opts, *kernel_src, *modules, *prefix;
	int refidle, keep_loaded, dry_run;
	char rel[128], arch[64];
	char exe_dir[PDIR];		/* where this wult runs from */
	char kdir[PDIR];		/* the SUT kernel's headers (build) */
	char ksrc[PDIR];		/* wult.ko's sources */
	char work[PDIR];		/* CACHE/wult/deploy/REL */
	char kos[PDIR];			/* the modules to send are here */
	char wult[PDIR];		/* the static wult to send */
};

/* snprintf() for paths: one that does not fit is "" (found nowhere). 0 or -1. */
__attribute__((format(printf, 3, 4)))
static int pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/* Runs @av here (make, tar, strip): its stdout to @quiet ? /dev/null : ours. 0 or -1. */
static int run_local(char **av, int quiet)
{
	int st, fd = -1;
	pid_t pid;

	if (quiet) {
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	pid = fork();

	if (pid < 0) {
		fprintf(stderr, CMD ": fork: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!pid) {
		if (fd >= 0 && dup2(fd, 1) < 0)
			_exit(126);
		execvp(av[0], av);
		fprintf(stderr, CMD ": cannot run %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	if (fd >= 0)
		close(fd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* A file's first line into @buf (of @size), without its newline. 0 or -1. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

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
	char p[PLEN], line[256], *q, *e;

	found[0] = '\0';
	pathf(p, sizeof(p), "%s/Makefile", dir);
	if (!is_file(p))
		return 0;
	pathf(p, sizeof(p), "%s/include/generated/utsrelease.h", dir);
	if (read_line(p, line, sizeof(line)))
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
static int find_headers(struct dep *d)
{
	const char *roots[] = { "%s/../kernels", "%s/../src/build/kernels" };
	char cand[PLEN], found[128], found_path[PATH_MAX];
	size_t i;

	if (d->kernel_src) {
		if (!is_dir(d->kernel_src)) {
			fprintf(stderr, CMD ": --kernel-src %s: no such directory\n",
				d->kernel_src);
			return -1;
		}
		if (!headers_of(d->kernel_src, d->rel, found, sizeof(found))) {
			if (found[0])
				fprintf(stderr, CMD ": --kernel-src %s: the headers of %s, not of "
					"%s (the kernel %s runs)\n", d->kernel_src, found,
					d->rel, d->sh.spec);
			else
				fprintf(stderr, CMD ": --kernel-src %s: no kernel build directory "
					"(no Makefile and include/generated/utsrelease.h)\n",
					d->kernel_src);
			return -1;
		}
		pathf(d->kdir, sizeof(d->kdir), "%s", d->kernel_src);
		return 0;
	}
	pathf(cand, sizeof(cand), "/lib/modules/%s/build", d->rel);
	if (headers_of(cand, d->rel, found, sizeof(found)))
		goto got;
	pathf(cand, sizeof(cand), "/usr/src/linux-headers-%s", d->rel);
	if (headers_of(cand, d->rel, found, sizeof(found)))
		goto got;
	/* The trees scripts/kpkg unpacked beside this build. */
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) + 1; i++) {
		char pat[PLEN];
		glob_t g;

		if (i < sizeof(roots) / sizeof(roots[0]))
			pathf(cand, sizeof(cand), roots[i], d->exe_dir);
		else if (getenv("WULT_KERNELS"))
			pathf(cand, sizeof(cand), "%s", getenv("WULT_KERNELS"));
		else
			continue;
		pathf(pat, sizeof(pat), "%s/*/usr/src/linux-headers-%s", cand, d->rel);
		if (glob(pat, 0, NULL, &g))
			continue;
		if (g.gl_pathc && headers_of(g.gl_pathv[0], d->rel, found, sizeof(found))) {
			pathf(cand, sizeof(cand), "%s", g.gl_pathv[0]);
			globfree(&g);
			goto got;
		}
		globfree(&g);
	}
	fprintf(stderr, CMD ": %s runs Linux %s, and this system has no headers for it "
		"(/lib/modules/%s/build, /usr/src/linux-headers-%s): install Debian's "
		"linux-headers-%s here (apt-get install linux-headers-%s), or give "
		"--kernel-src DIR, or --modules DIR with wult.ko built for it\n",
		d->sh.spec, d->rel, d->rel, d->rel, d->rel, d->rel);
	return -1;
got:
	if (!realpath(cand, found_path))
		pathf(found_path, sizeof(found_path), "%s", cand);
	return pathf(d->kdir, sizeof(d->kdir), "%s", found_path);
}

/* wult.ko's sources: the checkout this wult was built from, or make dkms-src's copy. */
static int find_ksrc(struct dep *d)
{
	const char *cands[] = { "%s/../src/kernel", "%s/../../kernel" };
	char p[PLEN], k[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]) + 1; i++) {
		if (i < sizeof(cands) / sizeof(cands[0]))
			pathf(p, sizeof(p), cands[i], d->exe_dir);
		else
			pathf(p, sizeof(p), "/usr/src/wult-%s", WULT_VERSION);
		pathf(k, sizeof(k), "%s/Kbuild", p);
		if (is_file(k) && realpath(p, k) && !pathf(d->ksrc, sizeof(d->ksrc), "%s", k))
			return 0;
	}
	fprintf(stderr, CMD ": wult.ko's sources not found (beside this wult's build, or "
		"/usr/src/wult-%s from `make dkms-src`): run the wult of a built checkout, "
		"or give --modules DIR\n", WULT_VERSION);
	return -1;
}

/* The wult to send: a static one, which runs on any Linux of this architecture. */
static int find_wult(struct dep *d)
{
	const char *cands[] = { "%s/wult-static", "%s/../lib/wult/wult-static" };
	char exe[PLEN];
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		pathf(d->wult, sizeof(d->wult), cands[i], d->exe_dir);
		if (is_file(d->wult) && is_static(d->wult))
			return 0;
	}
	pathf(exe, sizeof(exe), "%s/wult", d->exe_dir);
	if (is_static(exe)) {
		pathf(d->wult, sizeof(d->wult), "%s", exe);
		return 0;
	}
	fprintf(stderr, CMD ": no static wult to send (%s/wult-static; `make` builds it "
		"beside wult)\n", d->exe_dir);
	return -1;
}

/* Step 1: the SUT's release and architecture. 0, or -1 (said). */
static int ask_sut(struct dep *d)
{
	char *av[SSH_MAX_ARGS + 1], optbuf[4096], out[512];
	int st, code;

	if (ssh_argv(av, &d->sh, d->ssh_opts, optbuf, sizeof(optbuf), "uname -r; uname -m")) {
		fprintf(stderr, CMD ": --ssh-opts is too long\n");
		return -1;
	}
	st = ssh_run(av, -1, out, sizeof(out), CMD);
	if (st < 0)
		return -1;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (code == SSH_NO_CLIENT) {
		fprintf(stderr, CMD ": no ssh command here: install OpenSSH's client "
			"(openssh-client)\n");
		return -1;
	}
	if (code) {
		fprintf(stderr, CMD ": %s: cannot ask its kernel release: %s (ssh exit %d)\n",
			d->sh.spec, code == SSH_FAILED ? "the connection failed" :
			"uname failed there", code);
		return -1;
	}
	if (sscanf(out, "%127s %63s", d->rel, d->arch) != 2 ||
	    strspn(d->rel, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		   "._+~-") != strlen(d->rel)) {
		fprintf(stderr, CMD ": %s: uname -r and -m gave '%s'\n", d->sh.spec, out);
		return -1;
	}
	return 0;
}

static void say_cmd(char **av)
{
	int i;

	fprintf(stderr, "   ");
	for (i = 0; av[i]; i++)
		fprintf(stderr, " %s", av[i]);
	fprintf(stderr, "\n");
}

/* mkdir -p. 0 or -1. */
static int mkdirs(const char *path)
{
	char p[PLEN];
	size_t i;

	pathf(p, sizeof(p), "%s", path);
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		p[i] = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* This release's directory in the cache: CACHE/wult/deploy/REL. 0 or -1 (said). */
static int set_work(struct dep *d)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (cache && *cache == '/')
		pathf(d->work, sizeof(d->work), "%s/wult/deploy/%s", cache, d->rel);
	else if (home && *home == '/')
		pathf(d->work, sizeof(d->work), "%s/.cache/wult/deploy/%s", home, d->rel);
	else {
		fprintf(stderr, CMD ": no cache directory: set HOME or XDG_CACHE_HOME\n");
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
	char lp[PLEN], *old = NULL;
	size_t oldlen = 0;
	FILE *f;
	int ret;

	files_len = 0;
	files_root = strlen(src);
	if (nftw(src, add_file, 16, FTW_PHYS) || !files_buf)
		return -1;
	pathf(lp, sizeof(lp), "%s/sources", work);
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
		f = mkdirs(work) ? NULL : fopen(lp, "we");
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
static int build_modules(struct dep *d)
{
	char src[PLEN], mdir[PLEN], mm[PLEN];
	char *cp[] = { "cp", "-a", src, mdir, NULL };
	char *mk[] = { "make", "-s", "-C", d->kdir, mm, "W=1", "modules", NULL };
	char rel[128];

	pathf(src, sizeof(src), "%s/.", d->ksrc);
	pathf(mdir, sizeof(mdir), "%s/kernel", d->work);
	pathf(mm, sizeof(mm), "M=%s", mdir);
	pathf(d->kos, sizeof(d->kos), "%s", mdir);
	fprintf(stderr, CMD ": building wult.ko%s for %s in %s, against %s\n",
		d->refidle ? " and wult_refidle.ko" : "", d->rel, mdir, d->kdir);
	if (d->dry_run) {
		fprintf(stderr, "    mkdir -p %s\n", mdir);
		say_cmd(cp);
		say_cmd(mk);
		return 0;
	}
	/*
	 * A copy keeps the sources' times: make rebuilds only what changed.
	 * When files were added, moved or removed since the last copy, the
	 * copy starts afresh, so that no stale header is found by a path.
	 */
	if (same_files(d->ksrc, d->work) <= 0) {
		char *rm[] = { "rm", "-rf", mdir, NULL };

		if (run_local(rm, 0)) {
			fprintf(stderr, CMD ": cannot remove %s\n", mdir);
			return -1;
		}
	}
	if (mkdirs(mdir)) {
		fprintf(stderr, CMD ": cannot create %s: %s\n", mdir, strerror(errno));
		return -1;
	}
	if (run_local(cp, 0)) {
		fprintf(stderr, CMD ": cannot copy %s to %s\n", d->ksrc, mdir);
		return -1;
	}
	if (run_local(mk, 1)) {
		fprintf(stderr, CMD ": building the modules for %s failed (make -C %s %s, "
			"above)\n", d->rel, d->kdir, mm);
		return -1;
	}
	pathf(mm, sizeof(mm), "%s/wult.ko", mdir);
	if (ko_release(mm, rel, sizeof(rel)) || strcmp(rel, d->rel)) {
		fprintf(stderr, CMD ": %s is not a module for %s\n", mm, d->rel);
		return -1;
	}
	return 0;
}

/* --modules: built elsewhere, for the SUT's release. 0, or -1 (said). */
static int check_modules(struct dep *d)
{
	const char *names[] = { "wult", "wult_refidle" };
	char p[PLEN], rel[128];
	int i;

	pathf(d->kos, sizeof(d->kos), "%s", d->modules);
	for (i = 0; i < 1 + d->refidle; i++) {
		pathf(p, sizeof(p), "%s/%s.ko", d->modules, names[i]);
		if (!is_file(p)) {
			fprintf(stderr, CMD ": --modules %s: no %s.ko there\n", d->modules,
				names[i]);
			return -1;
		}
		if (ko_release(p, rel, sizeof(rel))) {
			fprintf(stderr, CMD ": %s: not a kernel module (no vermagic)\n", p);
			return -1;
		}
		if (strcmp(rel, d->rel)) {
			fprintf(stderr, CMD ": %s was built for %s; %s runs %s\n", p, rel,
				d->sh.spec, d->rel);
			return -1;
		}
	}
	fprintf(stderr, CMD ": sending the modules of %s (built for %s)\n", d->modules, d->rel);
	return 0;
}

/*
 * The SUT's side, for `sh -c` (POSIX sh and busybox both): the tar stream
 * on stdin unpacked, each file installed where it differs, depmod, then
 * wult.ko loaded and a 3-datapoint recording made through it. Its lines
 * go to our stdout; an error to stderr with exit 1.
 */
static const char install_script[] =
	"sut=%s rel=%s prefix=%s mods=%s keep=%d\n"
	"say() { echo \"$sut: $*\" >&2; }\n"
	"fail() { say \"$*\"; exit 1; }\n"
	"[ \"$(uname -r)\" = \"$rel\" ] || fail \"it now runs $(uname -r), not $rel\"\n"
	"[ \"$(id -u)\" = 0 ] || fail \"not root (user $(id -un)): installing modules "
	"needs root (root@HOST)\"\n"
	"for c in tar cmp depmod modprobe rmmod mktemp; do\n"
	"	command -v $c >/dev/null 2>&1 || fail \"no $c command\"\n"
	"done\n"
	"t=$(mktemp -d /tmp/wult-deploy.XXXXXX) || fail \"cannot make a temporary directory\"\n"
	"trap 'rm -rf \"$t\"' EXIT\n"
	"tar -C \"$t\" -xf - || fail \"cannot unpack the files sent\"\n"
	"d=/lib/modules/$rel/updates/wult\n"
	"mkdir -p \"$d\" \"$prefix/bin\" || fail \"cannot create $d and $prefix/bin\"\n"
	"changed=0\n"
	"put() {\n"
	"	if cmp -s \"$1\" \"$2\"; then say \"$2: unchanged\"; return 0; fi\n"
	"	cp \"$1\" \"$2.new\" && chmod \"$3\" \"$2.new\" && mv -f \"$2.new\" \"$2\" ||\n"
	"		fail \"cannot install $2\"\n"
	"	say \"$2: installed\"\n"
	"}\n"
	"for m in $mods; do\n"
	"	cmp -s \"$t/$m.ko\" \"$d/$m.ko\" || changed=1\n"
	"	put \"$t/$m.ko\" \"$d/$m.ko\" 644\n"
	"done\n"
	"put \"$t/wult\" \"$prefix/bin/wult\" 755\n"
	"depmod \"$rel\" || fail \"depmod $rel failed\"\n"
	"was=0\n"
	"grep -q '^wult ' /proc/modules && was=1\n"
	"if [ $was = 1 ] && [ $changed = 1 ]; then\n"
	"	rmmod wult 2>/dev/null || fail \"the wult.ko loaded is in use (a recording?): "
	"the new one is installed; unload the old one (rmmod wult) and deploy again to "
	"check it\"\n"
	"	say \"wult.ko: the old one unloaded\"\n"
	"fi\n"
	"if ! grep -q '^wult ' /proc/modules; then\n"
	"	n=$(dmesg 2>/dev/null | wc -l)\n"
	"	if ! modprobe wult; then\n"
	"		dmesg 2>/dev/null | tail -n +$((n + 1)) | tail -n 5 | sed \"s|^|$sut: |\" >&2\n"
	"		fail \"modprobe wult failed (its kernel log above)\"\n"
	"	fi\n"
	"	say \"wult.ko: loaded\"\n"
	"fi\n"
	"[ -e /sys/bus/event_source/devices/wult/type ] ||\n"
	"	fail \"wult.ko loaded, but no wult PMU in /sys/bus/event_source/devices\"\n"
	"if ! \"$prefix/bin/wult\" record -q -c 3 -t 30 -o \"$t/check.data\" 2>\"$t/err\"; then\n"
	"	sed \"s|^|$sut: |\" \"$t/err\" >&2\n"
	"	[ $was = 1 ] || [ $keep = 1 ] || rmmod wult\n"
	"	fail \"wult record through the wult PMU failed (above)\"\n"
	"fi\n"
	"say \"wult record: 3 datapoints through the wult PMU\"\n"
	"if [ $was = 0 ] && [ $keep = 0 ]; then\n"
	"	rmmod wult || fail \"rmmod wult failed\"\n"
	"	say \"wult.ko: unloaded (modprobe wult loads it)\"\n"
	"fi\n"
	"w=$(command -v wult)\n"
	"[ \"$w\" = \"$prefix/bin/wult\" ] || say \"note: wult on this PATH is '$w', not "
	"$prefix/bin/wult: wult record -H runs the one on the PATH\"\n"
	"exit 0\n";

/* Step 3: the files sent and installed, wult.ko checked. 0, or -1 (said). */
static int install(struct dep *d)
{
	char stage[PLEN], tarf[PLEN], src[PLEN], dst[PLEN];
	char script[8192], remote[16384] = "sh -c ", mods[64], qrel[256], qpre[PLEN];
	char qsut[1024];
	char *av[SSH_MAX_ARGS + 1], optbuf[4096];
	const char *names[] = { "wult", "wult_refidle" };
	int i, st, code, fd;

	pathf(mods, sizeof(mods), "'%s'", d->refidle ? "wult wult_refidle" : "wult");
	qrel[0] = qpre[0] = qsut[0] = '\0';
	if (ssh_quote(qrel, sizeof(qrel), d->rel) || ssh_quote(qpre, sizeof(qpre), d->prefix) ||
	    ssh_quote(qsut, sizeof(qsut), d->sh.spec) ||
	    (size_t)snprintf(script, sizeof(script), install_script, qsut, qrel, qpre, mods,
			     d->keep_loaded) >= sizeof(script) ||
	    ssh_quote(remote, sizeof(remote), script) ||
	    ssh_argv(av, &d->sh, d->ssh_opts, optbuf, sizeof(optbuf), remote)) {
		fprintf(stderr, CMD ": --prefix or --ssh-opts is too long\n");
		return -1;
	}
	fprintf(stderr, CMD ": installing on %s: /lib/modules/%s/updates/wult/%s, "
		"%s/bin/wult; depmod; loading wult.ko and recording 3 datapoints%s\n",
		d->sh.spec, d->rel, d->refidle ? "{wult,wult_refidle}.ko" : "wult.ko",
		d->prefix, d->keep_loaded ? "" : "; unloading it");
	if (d->dry_run) {
		fprintf(stderr, "    tar -cf - wult.ko%s wult | ssh ... %s 'sh -c SCRIPT', "
			"SCRIPT:\n%s", d->refidle ? " wult_refidle.ko" : "", d->sh.host, script);
		return 0;
	}
	/* The files as the SUT gets them: without DWARF (symbols kept), named. */
	pathf(stage, sizeof(stage), "%s/stage", d->work);
	if (mkdirs(stage)) {
		fprintf(stderr, CMD ": cannot create %s: %s\n", stage, strerror(errno));
		return -1;
	}
	for (i = 0; i < 2 + d->refidle; i++) {
		const char *name = i ? names[i - 1] : NULL;
		char *sa[] = { "strip", "--strip-debug", "-o", dst, src, NULL };
		char *ca[] = { "cp", src, dst, NULL };

		if (name) {
			pathf(src, sizeof(src), "%s/%s.ko", d->kos, name);
			pathf(dst, sizeof(dst), "%s/%s.ko", stage, name);
		} else {
			pathf(src, sizeof(src), "%s", d->wult);
			pathf(dst, sizeof(dst), "%s/wult", stage);
		}
		if (run_local(sa, 1) && run_local(ca, 0)) {
			fprintf(stderr, CMD ": cannot copy %s to %s\n", src, dst);
			return -1;
		}
	}
	pathf(tarf, sizeof(tarf), "%s/stage.tar", d->work);
	{
		char *ta[] = { "tar", "-C", stage, "-cf", tarf, "wult.ko", "wult",
			       d->refidle ? "wult_refidle.ko" : NULL, NULL };

		if (run_local(ta, 0)) {
			fprintf(stderr, CMD ": cannot make %s\n", tarf);
			return -1;
		}
	}
	fd = open(tarf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, CMD ": %s: %s\n", tarf, strerror(errno));
		return -1;
	}
	fflush(stdout);
	st = ssh_run(av, fd, NULL, 0, CMD);
	close(fd);
	if (st < 0)
		return -1;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (!code)
		return 0;
	if (code == SSH_FAILED)
		fprintf(stderr, CMD ": %s: the connection failed or was lost (ssh exit 255)\n",
			d->sh.spec);
	else
		fprintf(stderr, CMD ": %s: installing or checking failed there (exit %d)\n",
			d->sh.spec, code);
	return -1;
}

int wult_cmd_deploy(int argc, char **argv)
{
	static struct dep d;
	const char *host = NULL;
	const struct wult_opt opts[] = {
		WULT_OPT_STRING('H', "host", "SPEC", &host, "the SUT: [USER@]HOST[:PORT]"),
		WULT_OPT_STRING(0, "ssh-opts", "OPTS", &d.ssh_opts,
				"more options for ssh, split at spaces (e.g.\n"
				"'-i KEY -o StrictHostKeyChecking=no')"),
		WULT_OPT_STRING(0, "kernel-src", "DIR", &d.kernel_src,
				"the headers (kernel build directory) of the SUT's\n"
				"kernel; default: /lib/modules/REL/build,\n"
				"/usr/src/linux-headers-REL, or a tree\n"
				"scripts/kpkg unpacked, for the SUT's release REL"),
		WULT_OPT_STRING(0, "modules", "DIR", &d.modules,
				"send DIR/wult.ko (and wult_refidle.ko) built\n"
				"elsewhere, for the SUT's release: nothing built"),
		WULT_OPT_FLAG(0, "refidle", &d.refidle,
			      "also build and install wult_refidle.ko, the\n"
			      "reference cpuidle driver (installed, not loaded)"),
		WULT_OPT_STRING(0, "prefix", "DIR", &d.prefix,
				"install wult as DIR/bin/wult on the SUT (default\n"
				"/usr/local)"),
		WULT_OPT_FLAG(0, "keep-loaded", &d.keep_loaded,
			      "leave wult.ko loaded after the check"),
		WULT_OPT_FLAG('n', "dry-run", &d.dry_run,
			      "say the steps, do nothing (the SUT is still asked\n"
			      "its release)"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult deploy -H [USER@]HOST[:PORT] [options]\n"
			"\n"
			"Make a system under test ready for `wult record -H`: build wult.ko for\n"
			"its running kernel here, against that kernel's headers, and install it\n"
			"there with the wult command (a static build: it needs no library there),\n"
			"then load it, check that wult records through it, and unload it. Over\n"
			"the user's ssh, as root on the SUT (modules need root).\n"
			"\n",
		.opts = opts,
		.tail = "\n"
			"The modules are built in $XDG_CACHE_HOME/wult/deploy/REL (default\n"
			"~/.cache/wult/...), installed on the SUT in /lib/modules/REL/updates/wult\n"
			"(then depmod), so that `modprobe wult` loads them. Files that are already\n"
			"there, byte for byte, are left alone: deploying again changes nothing.\n"
			"\n"
			"Exit status: 0 deployed and checked, 1 failed (the step and the SUT's\n"
			"error said), 2 usage error.\n",
		.col = 25,
	};
	struct utsname un;
	char exe[PLEN];
	ssize_t n;
	int ret;

	memset(&d, 0, sizeof(d));
	d.prefix = "/usr/local";
	ret = wult_opts_parse(&set, argc, argv, &d);
	if (ret == WULT_OPTS_HELP)
		return 0;
	if (ret == WULT_OPTS_USAGE)
		wult_opts_usage(&set, stderr);
	if (ret)
		return 2;
	if (optind < argc) {
		fprintf(stderr, CMD ": unexpected argument '%s' (the SUT goes after -H)\n",
			argv[optind]);
		return 2;
	}
	if (!host) {
		fprintf(stderr, CMD ": no SUT: -H [USER@]HOST[:PORT]\n");
		return 2;
	}
	if (strchr(host, ',')) {
		fprintf(stderr, CMD ": -H takes one SUT ('%s' names several): deploy to each "
			"in turn\n", host);
		return 2;
	}
	if (ssh_host_parse(&d.sh, host, CMD, "-H"))
		return 2;
	if (d.kernel_src && d.modules) {
		fprintf(stderr, CMD ": --kernel-src builds the modules, --modules sends built "
			"ones: give one\n");
		return 2;
	}
	if (d.prefix[0] != '/' || strcspn(d.prefix, "\n") != strlen(d.prefix)) {
		fprintf(stderr, CMD ": --prefix must be an absolute path, not '%s'\n", d.prefix);
		return 2;
	}
	if (d.ssh_opts && strlen(d.ssh_opts) >= 4096) {
		fprintf(stderr, CMD ": --ssh-opts is too long\n");
		return 2;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		fprintf(stderr, CMD ": /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	exe[n] = '\0';
	pathf(d.exe_dir, sizeof(d.exe_dir), "%s", dirname(exe));

	/* What can be refused here is refused before the SUT is asked. */
	if (find_wult(&d) || (!d.modules && find_ksrc(&d)))
		return 1;
	if (ask_sut(&d))
		return 1;
	fprintf(stderr, CMD ": %s runs Linux %s on %s\n", d.sh.spec, d.rel, d.arch);
	if (uname(&un) || strcmp(un.machine, d.arch)) {
		fprintf(stderr, CMD ": %s is %s, this system %s: wult deploy builds for its "
			"own architecture only\n", d.sh.spec, d.arch, un.machine);
		return 1;
	}
	if (set_work(&d) || (d.modules ? check_modules(&d) :
			     find_headers(&d) || build_modules(&d)))
		return 1;
	if (install(&d))
		return 1;
	if (d.dry_run)
		fprintf(stderr, CMD ": dry run: nothing built, sent or installed\n");
	else
		fprintf(stderr, CMD ": %s: ready (wult record -H %s)\n", d.sh.spec, d.sh.spec);
	return 0;
}
