/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel address symbolization for branch stacks (LBR) around a wake.
 *
 * Symbols come from ELF files read with elfutils' libelf (a vmlinux, whose
 * addresses are as linked, or a module .ko, whose .text is placed at the
 * address the kernel loaded it to, /sys/module/NAME/sections/.text) and,
 * as a fallback, from a kallsyms table (/proc/kallsyms format), which has
 * no symbol sizes: a symbol then extends to the next one, but never more
 * than WULT_SYM_MAX_EXTENT bytes (no kernel function is that large; the
 * gap to the module area, or past the last symbol, stays unknown).
 */
#ifndef WULT_SYM_H
#define WULT_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_sym;

#define WULT_SYM_MAX_EXTENT	0x10000ULL	/* bytes, size-less symbols */

int wult_sym_new(struct wult_sym **out);
void wult_sym_free(struct wult_sym *s);

/*
 * Adds the function symbols of ELF file @path. For relocatable files
 * (modules) @text_base is where .text was loaded; for executables and
 * shared objects it is added to every symbol (0 for a vmlinux).
 * @module names the symbols' owner in output ("[wult]"), may be NULL.
 * 0, or -errno with @err saying why.
 */
int wult_sym_add_elf(struct wult_sym *s, const char *path, uint64_t text_base,
		     const char *module, char *err, size_t errlen);

/*
 * Adds the function symbols of vmlinux @path where the running kernel has
 * them: KASLR moves the kernel by the offset of kallsyms' _text (from
 * @kallsyms, e.g. /proc/kallsyms or the recording machine's copy) from the
 * vmlinux's _text. Without @kallsyms, or where it hides addresses, the
 * symbols stay as linked. The offset used goes to @kaslr (may be NULL).
 * 0, or -errno with @err saying why.
 */
int wult_sym_add_vmlinux(struct wult_sym *s, const char *path, const char *kallsyms,
			 uint64_t *kaslr, char *err, size_t errlen);

/* Adds text symbols of a kallsyms file. 0, or -errno with @err. */
int wult_sym_add_kallsyms(struct wult_sym *s, const char *path, char *err, size_t errlen);

/* The symbol containing @addr and the offset into it: 0, or -ENOENT. */
int wult_sym_lookup(struct wult_sym *s, uint64_t addr, const char **name,
		    const char **module, uint64_t *off);

/*
 * Formats one branch as "from_sym+0xoff -> to_sym+0xoff" (raw addresses
 * where unknown) into @buf; returns the length as snprintf does.
 */
int wult_sym_branch_str(struct wult_sym *s, const struct perf_branch_entry *br,
			char *buf, size_t len);

#pragma GCC visibility pop

#endif
