// SPDX-License-Identifier: GPL-2.0
/*
 * Address to symbol lookup over ELF symbol tables and kallsyms: one sorted
 * array, binary search. Sorting is deferred to the first lookup so that
 * adding several files costs one sort.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/sym.h>
#include "internal/err.h"

struct sym {
	uint64_t addr, size;	/* size 0: up to the next symbol */
	char *name;
	const char *module;
};

struct wult_sym {
	struct sym *v;
	size_t n, cap;
	int sorted;
	char **modules;		/* owned module names */
	size_t nmod;
};

int wult_sym_new(struct wult_sym **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void wult_sym_free(struct wult_sym *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->v[i].name);
	for (i = 0; i < s->nmod; i++)
		free(s->modules[i]);
	free(s->modules);
	free(s->v);
	free(s);
}

static const char *own_module(struct wult_sym *s, const char *module)
{
	char **m, *dup;

	if (!module)
		return NULL;
	dup = strdup(module);
	m = realloc(s->modules, (s->nmod + 1) * sizeof(*m));
	if (!dup || !m) {
		free(dup);
		if (m)
			s->modules = m;
		return NULL;
	}
	s->modules = m;
	m[s->nmod++] = dup;
	return dup;
}

static int add(struct wult_sym *s, uint64_t addr, uint64_t size, const char *name,
	       const char *module)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct sym *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].name = strdup(name);
	if (!s->v[s->n].name)
		return -ENOMEM;
	s->v[s->n].addr = addr;
	s->v[s->n].size = size;
	s->v[s->n].module = module;
	s->n++;
	s->sorted = 0;
	return 0;
}

/* Index of the section named @want, or 0. */
static size_t find_section(Elf *elf, size_t shstrndx, const char *want)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return elf_ndxscn(scn);
	}
	return 0;
}

int wult_sym_add_elf(struct wult_sym *s, const char *path, uint64_t text_base,
		     const char *module, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, text_ndx = 0, added = 0;
	const char *mod;
	GElf_Ehdr eh;
	int fd, ret = 0;
	Elf *elf;

	if (!s || !path)
		return wult_err_set(err, errlen, -EINVAL, "no symbol file given");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return wult_err_set(err, errlen, -EINVAL, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return wult_err_set(err, errlen, -errno, "%s: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		ret = wult_err_set(err, errlen, -EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	/* In a module, function symbols are relative to their section. */
	if (eh.e_type == ET_REL)
		text_ndx = find_section(elf, shstrndx, ".text");
	mod = own_module(s, module);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t i, nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsym = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < nsym; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t addr;

			if (!gelf_getsym(data, i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
				continue;
			if (eh.e_type == ET_REL && sym.st_shndx != text_ndx)
				continue;	/* only .text has a known address */
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			addr = sym.st_value + text_base;
			ret = add(s, addr, sym.st_size, name, mod);
			if (ret) {
				wult_err_set(err, errlen, ret, "out of memory");
				goto out;
			}
			added++;
		}
	}
	if (!added)
		ret = wult_err_set(err, errlen, -ENOENT, "%s: no function symbols (stripped?)", path);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* The value of symbol @want in ELF @path's symbol table. 0 or -ENOENT. */
static int elf_sym_value(const char *path, const char *want, uint64_t *val)
{
	Elf_Scn *scn = NULL;
	int fd, ret = -ENOENT;
	Elf *elf;

	fd = open(path, O_RDONLY);
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && ret && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Sym sym;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; ret && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(data, i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, want)) {
				*val = sym.st_value;
				ret = 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* The address of @want in kallsyms file @path. 0, or -ENOENT. */
static int kallsyms_value(const char *path, const char *want, uint64_t *val)
{
	char line[512], name[256];
	unsigned long long addr;
	FILE *f = fopen(path, "r");
	char type;
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, want)) {
			*val = addr;
			ret = 0;
		}
	fclose(f);
	return ret;
}

int wult_sym_add_vmlinux(struct wult_sym *s, const char *path, const char *kallsyms,
			 uint64_t *kaslr, char *err, size_t errlen)
{
	uint64_t linked = 0, running = 0, off = 0;

	/* Unsigned arithmetic: a kernel moved down works the same. */
	if (path && kallsyms && !kallsyms_value(kallsyms, "_text", &running) && running &&
	    !elf_sym_value(path, "_text", &linked))
		off = running - linked;
	if (kaslr)
		*kaslr = off;
	return wult_sym_add_elf(s, path, off, NULL, err, errlen);
}

int wult_sym_add_kallsyms(struct wult_sym *s, const char *path, char *err, size_t errlen)
{
	char line[512], name[256], modbuf[128];
	size_t added = 0, lineno = 0;
	FILE *f;
	int ret = 0;

	if (!s || !path)
		return wult_err_set(err, errlen, -EINVAL, "no kallsyms file given");
	f = fopen(path, "r");
	if (!f)
		return wult_err_set(err, errlen, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type;
		int n;

		lineno++;
		modbuf[0] = '\0';
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, modbuf);
		if (n < 3) {
			ret = wult_err_set(err, errlen, -EINVAL, "%s:%zu: not a kallsyms line",
				      path, lineno);
			break;
		}
		if (type != 't' && type != 'T')
			continue;
		ret = add(s, addr, 0, name, n == 4 ? own_module(s, modbuf) : NULL);
		if (ret) {
			wult_err_set(err, errlen, ret, "out of memory");
			break;
		}
		added++;
	}
	fclose(f);
	if (!ret && !added)
		ret = wult_err_set(err, errlen, -ENOENT, "%s: no text symbols (addresses hidden? "
			      "read it as root)", path);
	return ret;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int wult_sym_lookup(struct wult_sym *s, uint64_t addr, const char **name,
		    const char **module, uint64_t *off)
{
	size_t lo = 0, hi;
	const struct sym *sym;

	if (!s || !s->n)
		return -ENOENT;
	if (!s->sorted) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_sym);
		s->sorted = 1;
	}
	/* The last symbol starting at or below @addr. */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	sym = &s->v[lo - 1];
	if (sym->size ? addr >= sym->addr + sym->size :
	    (lo < s->n && addr >= s->v[lo].addr) ||
	    addr - sym->addr >= WULT_SYM_MAX_EXTENT)
		return -ENOENT;
	if (name)
		*name = sym->name;
	if (module)
		*module = sym->module;
	if (off)
		*off = addr - sym->addr;
	return 0;
}

static int addr_str(struct wult_sym *s, uint64_t addr, char *buf, size_t len)
{
	const char *name, *mod;
	uint64_t off;

	if (wult_sym_lookup(s, addr, &name, &mod, &off))
		return snprintf(buf, len, "%#llx", (unsigned long long)addr);
	return snprintf(buf, len, "%s+%#llx%s%s%s", name, (unsigned long long)off,
			mod ? " [" : "", mod ? mod : "", mod ? "]" : "");
}

int wult_sym_branch_str(struct wult_sym *s, const struct perf_branch_entry *br,
			char *buf, size_t len)
{
	char from[192], to[192];

	addr_str(s, br->from, from, sizeof(from));
	addr_str(s, br->to, to, sizeof(to));
	return snprintf(buf, len, "%s -> %s", from, to);
}
