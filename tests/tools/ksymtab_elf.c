// SPDX-License-Identifier: GPL-2.0
/*
 * ksymtab_elf VMLINUX OUT: writes OUT, an ELF holding the exported
 * functions of a stripped vmlinux (its __ksymtab and __ksymtab_gpl) as
 * STT_FUNC symbols at their link addresses, plus _text. Debian ships
 * neither a symbol table in the image nor a real System.map, so this is
 * the vmlinux a KASLR guest test gives `wult report --vmlinux`: the names
 * come from the image, the addresses the guest runs at from its kallsyms.
 *
 * A __ksymtab entry (x86-64, PREL32 relocations, 6.1 and 6.12) is
 *   { s32 value_offset; s32 name_offset; s32 namespace_offset; }
 * each offset relative to the field's own address.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSYM_SIZE	12
#define MAX_SIZE	(64U << 10)	/* a function's size when the next is far */

struct ksym {
	uint64_t addr;
	const char *name;
};

struct image {
	Elf *elf;
	size_t shstrndx;
	GElf_Shdr text, strs;
	Elf_Data *strs_data;
	struct ksym *syms;
	size_t nr, cap;
};

static Elf_Scn *find_scn(struct image *im, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(im->elf, im->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int add(struct image *im, uint64_t addr, const char *name)
{
	if (im->nr == im->cap) {
		size_t cap = im->cap ? 2 * im->cap : 4096;
		struct ksym *s = realloc(im->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		im->syms = s;
		im->cap = cap;
	}
	im->syms[im->nr].addr = addr;
	im->syms[im->nr].name = name;
	im->nr++;
	return 0;
}

/* The functions (in .text) a __ksymtab section exports. */
static int read_ksymtab(struct image *im, const char *secname)
{
	const char *strs = im->strs_data->d_buf;
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(im, secname, &sh);
	Elf_Data *d;
	size_t i;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size % KSYM_SIZE)
		return -EINVAL;
	for (i = 0; i < d->d_size; i += KSYM_SIZE) {
		int32_t voff, noff;
		uint64_t val, name;

		memcpy(&voff, (char *)d->d_buf + i, 4);
		memcpy(&noff, (char *)d->d_buf + i + 4, 4);
		val = sh.sh_addr + i + (int64_t)voff;
		name = sh.sh_addr + i + 4 + (int64_t)noff;
		if (name < im->strs.sh_addr || name >= im->strs.sh_addr + im->strs_data->d_size)
			return -EINVAL;
		if (val < im->text.sh_addr || val >= im->text.sh_addr + im->text.sh_size)
			continue;	/* data, or code outside .text */
		if (!memchr(strs + (name - im->strs.sh_addr), 0,
			    im->strs_data->d_size - (name - im->strs.sh_addr)))
			return -EINVAL;
		if (add(im, val, strs + (name - im->strs.sh_addr)))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_section(Elf *out, const char *sname, size_t *shstr, Elf_Data **dp,
		       GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_newscn(out);

	if (!scn || !(*dp = elf_newdata(scn)))
		return -1;
	if (!gelf_getshdr(scn, sh))
		return -1;
	sh->sh_name = *shstr;
	*shstr += strlen(sname) + 1;
	return (int)elf_ndxscn(scn);
}

/* Sections: 1 .text (NOBITS, at the image's address), 2 .symtab,
 * 3 .strtab, 4 .shstrtab. */
static int write_out(struct image *im, const char *path)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t strsz = 1 + strlen("_text") + 1, shoff = 1, i, nsym = im->nr + 2;
	GElf_Sym *syms = calloc(nsym, sizeof(*syms));
	char *strtab;
	Elf_Data *d[4];
	GElf_Shdr sh[4];
	GElf_Ehdr eh;
	int fd, ret = -1, k;
	Elf *out;

	for (i = 0; i < im->nr; i++)
		strsz += strlen(im->syms[i].name) + 1;
	strtab = calloc(1, strsz);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	out = fd >= 0 ? elf_begin(fd, ELF_C_WRITE, NULL) : NULL;
	if (!syms || !strtab || !out || !gelf_newehdr(out, ELFCLASS64))
		goto done;
	gelf_getehdr(out, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	/* _text, then the functions, each up to the next (at most MAX_SIZE). */
	strcpy(strtab + 1, "_text");
	syms[1] = (GElf_Sym){ .st_name = 1, .st_value = im->text.sh_addr, .st_shndx = 1,
			      .st_info = GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE) };
	for (i = 0, k = 1 + 6; i < im->nr; i++) {
		uint64_t end = i + 1 < im->nr ? im->syms[i + 1].addr :
			       im->text.sh_addr + im->text.sh_size;

		strcpy(strtab + k, im->syms[i].name);
		syms[i + 2] = (GElf_Sym){
			.st_name = k, .st_value = im->syms[i].addr, .st_shndx = 1,
			.st_size = end - im->syms[i].addr > MAX_SIZE ? MAX_SIZE :
				   end - im->syms[i].addr,
			.st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC),
		};
		k += strlen(im->syms[i].name) + 1;
	}
	if (add_section(out, ".text", &shoff, &d[0], &sh[0]) != 1 ||
	    add_section(out, ".symtab", &shoff, &d[1], &sh[1]) != 2 ||
	    add_section(out, ".strtab", &shoff, &d[2], &sh[2]) != 3 ||
	    add_section(out, ".shstrtab", &shoff, &d[3], &sh[3]) != 4)
		goto done;
	sh[0].sh_type = SHT_NOBITS;
	sh[0].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[0].sh_addr = im->text.sh_addr;
	sh[0].sh_size = im->text.sh_size;
	d[0]->d_type = ELF_T_BYTE;
	d[0]->d_size = im->text.sh_size;
	d[1]->d_buf = NULL;
	d[1]->d_type = ELF_T_SYM;
	d[1]->d_size = gelf_fsize(out, ELF_T_SYM, nsym, EV_CURRENT);
	d[1]->d_buf = calloc(1, d[1]->d_size);
	if (!d[1]->d_buf)
		goto done;
	for (i = 0; i < nsym; i++)
		gelf_update_sym(d[1], i, &syms[i]);
	sh[1].sh_type = SHT_SYMTAB;
	sh[1].sh_link = 3;
	sh[1].sh_info = 1;	/* the first global */
	sh[1].sh_entsize = gelf_fsize(out, ELF_T_SYM, 1, EV_CURRENT);
	d[2]->d_buf = strtab;
	d[2]->d_size = strsz;
	d[2]->d_type = ELF_T_BYTE;
	sh[2].sh_type = SHT_STRTAB;
	d[3]->d_buf = (void *)shstr;
	d[3]->d_size = sizeof(shstr);
	d[3]->d_type = ELF_T_BYTE;
	sh[3].sh_type = SHT_STRTAB;
	for (k = 0; k < 4; k++)
		gelf_update_shdr(elf_getscn(out, k + 1), &sh[k]);
	eh.e_shstrndx = 4;
	gelf_update_ehdr(out, &eh);
	ret = elf_update(out, ELF_C_WRITE) < 0 ? -1 : 0;
	free(d[1]->d_buf);
done:
	if (ret)
		fprintf(stderr, "ksymtab_elf: writing %s: %s\n", path,
			fd < 0 ? strerror(errno) : elf_errmsg(-1));
	if (out)
		elf_end(out);
	if (fd >= 0)
		close(fd);
	free(syms);
	free(strtab);
	return ret;
}

int main(int argc, char **argv)
{
	struct image im = { 0 };
	int fd, ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: ksymtab_elf VMLINUX OUT\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "ksymtab_elf: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	im.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!im.elf || elf_getshdrstrndx(im.elf, &im.shstrndx) ||
	    !find_scn(&im, ".text", &im.text)) {
		fprintf(stderr, "ksymtab_elf: %s: not a vmlinux ELF\n", argv[1]);
		goto out;
	}
	{
		Elf_Scn *s = find_scn(&im, "__ksymtab_strings", &im.strs);

		im.strs_data = s ? elf_getdata(s, NULL) : NULL;
	}
	if (!im.strs_data || read_ksymtab(&im, "__ksymtab") ||
	    read_ksymtab(&im, "__ksymtab_gpl")) {
		fprintf(stderr, "ksymtab_elf: %s: no readable __ksymtab\n", argv[1]);
		goto out;
	}
	qsort(im.syms, im.nr, sizeof(*im.syms), cmp_addr);
	if (!write_out(&im, argv[2])) {
		printf("%s: %zu exported functions\n", argv[2], im.nr);
		ret = 0;
	}
out:
	free(im.syms);
	if (im.elf)
		elf_end(im.elf);
	close(fd);
	return ret;
}
