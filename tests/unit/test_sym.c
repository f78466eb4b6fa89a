// SPDX-License-Identifier: GPL-2.0
/*
 * wult_sym_*: synthetic branch stacks whose addresses are known symbols of
 * this test program (an ELF loaded at a known base), of wult.ko (a module
 * placed at a chosen .text address) and of a kallsyms table; a vmlinux
 * relocated by the KASLR offset kallsyms' _text shows.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <wult/sym.h>
#include "wt.h"

static volatile int sink;

__attribute__((noinline)) static void known_from(void)
{
	sink++;
}

__attribute__((noinline)) static void known_to(void)
{
	sink--;
}

static void test_self(void)
{
	struct perf_branch_entry br = { 0 };
	struct wult_sym *s;
	const char *name;
	uint64_t off;
	Dl_info info;
	char err[256], buf[512];

	WT_EQ(wult_sym_new(&s), 0);
	WT_CHECK(dladdr((void *)known_from, &info) && info.dli_fbase, "dladdr");
	WT_EQ(wult_sym_add_elf(s, "/proc/self/exe", (uintptr_t)info.dli_fbase, NULL,
			       err, sizeof(err)), 0);
	WT_EQ(wult_sym_lookup(s, (uintptr_t)known_from + 3, &name, NULL, &off), 0);
	WT_CHECK(!strcmp(name, "known_from"), "got %s", name);
	WT_EQ(off, 3);
	br.from = (uintptr_t)known_from + 4;
	br.to = (uintptr_t)known_to;
	wult_sym_branch_str(s, &br, buf, sizeof(buf));
	WT_CHECK(!strcmp(buf, "known_from+0x4 -> known_to+0"), "branch '%s'", buf);
	br.from = 0x10;
	wult_sym_branch_str(s, &br, buf, sizeof(buf));
	WT_CHECK(!strcmp(buf, "0x10 -> known_to+0"), "unknown address '%s'", buf);
	wult_sym_free(s);
}

/* A .text function of wult.ko and its offset, from objdump. */
static int module_text_symbol(const char *ko, char *name, size_t len, uint64_t *val)
{
	char cmd[512], line[512];
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -t %s 2>/dev/null", ko);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (!found && fgets(line, sizeof(line), p)) {
		unsigned long long v, size;
		char sec[64], sym[256];

		if (sscanf(line, "%llx %*s F %63s %llx %255s", &v, sec, &size, sym) == 4 &&
		    !strcmp(sec, ".text") && size > 8 && v > 0) {
			snprintf(name, len, "%s", sym);
			*val = v;
			found = 1;
		}
	}
	pclose(p);
	return found ? 0 : -1;
}

static void test_module(void)
{
	const char *ko = "build/kernel/6.1/wult.ko", *name, *mod;
	const uint64_t base = 0xffffffffc0a00000ULL;
	struct perf_branch_entry br = { 0 };
	struct wult_sym *s;
	char want[256], err[256], buf[512], expect[600];
	uint64_t val, off;

	if (access(ko, R_OK) || module_text_symbol(ko, want, sizeof(want), &val)) {
		WT_SKIP("no build/kernel/6.1/wult.ko with symbols: module case not run");
		return;
	}
	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_elf(s, ko, base, "wult", err, sizeof(err)), 0);
	WT_EQ(wult_sym_lookup(s, base + val + 5, &name, &mod, &off), 0);
	WT_CHECK(!strcmp(name, want), "got %s, want %s", name, want);
	WT_CHECK(mod && !strcmp(mod, "wult"), "module");
	WT_EQ(off, 5);
	br.from = base + val + 8;
	br.to = base + val;
	wult_sym_branch_str(s, &br, buf, sizeof(buf));
	snprintf(expect, sizeof(expect), "%s+0x8 [wult] -> %s+0 [wult]", want, want);
	WT_CHECK(!strcmp(buf, expect), "'%s' != '%s'", buf, expect);
	wult_sym_free(s);
}

static void test_kallsyms(void)
{
	char path[] = "/tmp/wult-kallsyms-XXXXXX";
	struct wult_sym *s;
	const char *name, *mod;
	uint64_t off;
	char err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	WT_CHECK(f != NULL, "tmp file");
	if (!f)
		return;
	fprintf(f, "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 t default_idle\n"
		   "ffffffff81000200 T do_idle\n"
		   "ffffffff81000300 d some_data\n"
		   "ffffffffc0001000 t wult_probe\t[wult]\n");
	fclose(f);
	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_kallsyms(s, path, err, sizeof(err)), 0);
	WT_EQ(wult_sym_lookup(s, 0xffffffff81000150ULL, &name, &mod, &off), 0);
	WT_CHECK(!strcmp(name, "default_idle") && !mod, "got %s", name);
	WT_EQ(off, 0x50);
	WT_EQ(wult_sym_lookup(s, 0xffffffff81000350ULL, &name, NULL, &off), 0);
	WT_CHECK(!strcmp(name, "do_idle"), "data symbols are skipped: got %s", name);
	WT_EQ(wult_sym_lookup(s, 0xffffffffc0001004ULL, &name, &mod, &off), 0);
	WT_CHECK(!strcmp(name, "wult_probe") && mod && !strcmp(mod, "wult"), "module sym");
	WT_EQ(wult_sym_lookup(s, 0xffffffff80000000ULL, &name, NULL, &off), -ENOENT);
	/* A size-less symbol does not cover a far gap (text end to modules)
	 * nor everything after the last one. */
	WT_EQ(wult_sym_lookup(s, 0xffffffff81000200ULL + WULT_SYM_MAX_EXTENT - 1, &name, NULL,
			      &off), 0);
	WT_EQ(wult_sym_lookup(s, 0xffffffff81000200ULL + WULT_SYM_MAX_EXTENT, &name, NULL, &off),
	      -ENOENT);
	WT_EQ(wult_sym_lookup(s, 0xffffffffc0001000ULL + WULT_SYM_MAX_EXTENT, &name, NULL, &off),
	      -ENOENT);
	wult_sym_free(s);

	f = fopen(path, "w");
	fprintf(f, "ffffffff81000000 T ok\nthis is not kallsyms\n");
	fclose(f);
	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_kallsyms(s, path, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, ":2:") != NULL, "line number in '%s'", err);
	wult_sym_free(s);
	unlink(path);
}

static void test_errors(void)
{
	struct wult_sym *s;
	char err[256];

	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_elf(s, "/nonexistent.ko", 0, NULL, err, sizeof(err)), -ENOENT);
	WT_CHECK(strstr(err, "/nonexistent.ko") != NULL, "%s", err);
	WT_EQ(wult_sym_add_elf(s, "/etc/hostname", 0, NULL, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_sym_add_kallsyms(s, "/nonexistent", err, sizeof(err)), -ENOENT);
	WT_EQ(wult_sym_lookup(s, 0x1234, NULL, NULL, NULL), -ENOENT);
	WT_EQ(wult_sym_add_elf(NULL, "x", 0, NULL, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_sym_new(NULL), -EINVAL);
	wult_sym_free(s);
	wult_sym_free(NULL);
}

/*
 * A vmlinux-like executable linked at the kernel's base, and kallsyms of a
 * kernel that KASLR moved by 0x1e00000: --vmlinux symbols must be looked
 * up at the moved addresses.
 */
static void test_vmlinux_kaslr(void)
{
	char dir[] = "/tmp/wult-sym-XXXXXX", cmd[1024], vml[64], ks[64], err[256];
	const uint64_t base = 0xffffffff81000000ULL, kaslr = 0x1e00000ULL;
	struct wult_sym *s;
	const char *name;
	uint64_t off, got = 1;
	FILE *f;

	if (!mkdtemp(dir)) {
		WT_SKIP("mkdtemp failed");
		return;
	}
	snprintf(vml, sizeof(vml), "%s/vmlinux", dir);
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && printf '%%s\\n' 'void _text(void) {}' "
		 "'int do_idle(int x) { return x * 3 + 1; }' > v.c && "
		 "cc -c -O1 -mcmodel=kernel -fno-pic -o v.o v.c && "
		 "ld -static -nostdlib -Ttext=%#llx -e _text -o vmlinux v.o", dir,
		 (unsigned long long)base);
	if (system(cmd)) {
		WT_SKIP("cannot build a vmlinux-like ELF with cc and ld");
		return;
	}
	f = fopen(ks, "w");
	WT_CHECK(f != NULL, "create %s", ks);
	if (!f)
		return;
	fprintf(f, "%llx T _text\n%llx t do_idle\n", (unsigned long long)(base + kaslr),
		(unsigned long long)(base + kaslr + 1));
	fclose(f);

	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_vmlinux(s, vml, ks, &got, err, sizeof(err)), 0);
	WT_EQ(got, kaslr);
	WT_EQ(wult_sym_lookup(s, base + kaslr + 1 + 2, &name, NULL, &off), 0);
	WT_CHECK(!strcmp(name, "do_idle") && off == 2, "moved do_idle+2: %s+%llu", name,
		 (unsigned long long)off);
	WT_EQ(wult_sym_lookup(s, base + 1 + 2, NULL, NULL, NULL), -ENOENT);
	wult_sym_free(s);

	/* No kallsyms, or one that hides addresses: symbols as linked. */
	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_vmlinux(s, vml, NULL, &got, err, sizeof(err)), 0);
	WT_EQ(got, 0);
	WT_EQ(wult_sym_lookup(s, base + 1 + 2, &name, NULL, &off), 0);
	wult_sym_free(s);
	f = fopen(ks, "w");
	WT_CHECK(f != NULL, "create %s", ks);
	if (!f)
		return;
	fprintf(f, "0000000000000000 T _text\n");
	fclose(f);
	WT_EQ(wult_sym_new(&s), 0);
	WT_EQ(wult_sym_add_vmlinux(s, vml, ks, &got, err, sizeof(err)), 0);
	WT_EQ(got, 0);
	wult_sym_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	WT_EQ(system(cmd), 0);
}

int main(void)
{
	test_self();
	test_module();
	test_kallsyms();
	test_errors();
	test_vmlinux_kaslr();
	return wt_done();
}
