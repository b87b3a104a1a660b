/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading a classifier out of a BPF ELF object with libbpf (no EAL).
 *
 * libbpf does the ELF work: sections, symbols, relocation records, BTF.
 * Only what rte_bpf can run is accepted: one program whose instructions
 * stand alone. rte_bpf has no maps and no BPF-to-BPF calls, and libbpf
 * resolves map and global-data references only when it loads into the
 * kernel, which ibex never does; so an object with maps (.maps, .data,
 * .rodata, .bss) or a program with pseudo calls is refused here, with the
 * reason, instead of being rejected later with a less telling message.
 */

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "ibex_bpf.h"

/* libbpf reports through a global print callback: keep its last warning
 * for the error message (control thread only). */
static char obj_last_msg[256];

static int
obj_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(obj_last_msg, sizeof(obj_last_msg), fmt, ap);
	n = strlen(obj_last_msg);
	while (n > 0 && (obj_last_msg[n - 1] == '\n' ||
			 obj_last_msg[n - 1] == '\r'))
		obj_last_msg[--n] = '\0';
	return 0;
}

int
ibex_bpf_spec_split(const char *spec, char file[IBEX_BPF_PATH_LEN],
		    char section[IBEX_BPF_SEC_LEN])
{
	const char *colon = strrchr(spec, ':');
	size_t flen = colon != NULL ? (size_t)(colon - spec) : strlen(spec);

	if (flen == 0 || flen >= IBEX_BPF_PATH_LEN)
		return -EINVAL;
	if (colon != NULL && (colon[1] == '\0' ||
			      strlen(colon + 1) >= IBEX_BPF_SEC_LEN))
		return -EINVAL;
	memcpy(file, spec, flen);
	file[flen] = '\0';
	snprintf(section, IBEX_BPF_SEC_LEN, "%s",
		 colon != NULL ? colon + 1 : "");
	return 0;
}

/* "a, b, c": the program sections of the object, for messages. */
static void
obj_sections(struct bpf_object *obj, char *buf, size_t len)
{
	struct bpf_program *prog;
	size_t used = 0;

	buf[0] = '\0';
	bpf_object__for_each_program(prog, obj) {
		if (used >= len)
			break;
		used += snprintf(buf + used, len - used, "%s%s",
				 used > 0 ? ", " : "",
				 bpf_program__section_name(prog));
	}
}

static struct bpf_program *
obj_pick(struct bpf_object *obj, const char *section, const char *path,
	 char *err, size_t errlen)
{
	struct bpf_program *prog, *found = NULL;
	char list[256];
	int n = 0;

	bpf_object__for_each_program(prog, obj) {
		n++;
		if (section == NULL || section[0] == '\0') {
			found = found == NULL ? prog : found;
			continue;
		}
		if (strcmp(bpf_program__section_name(prog), section) == 0 ||
		    strcmp(bpf_program__name(prog), section) == 0)
			return prog;
	}
	obj_sections(obj, list, sizeof(list));
	if (n == 0)
		snprintf(err, errlen, "%s: no program in the object", path);
	else if (section != NULL && section[0] != '\0')
		snprintf(err, errlen, "%s: no section '%s' (sections: %s)",
			 path, section, list);
	else if (n > 1)
		snprintf(err, errlen, "%s: %d programs: name one with "
			 "FILE:SECTION (sections: %s)", path, n, list);
	else
		return found;
	return NULL;
}

/* What rte_bpf cannot run, found by looking at the instructions. */
static int
obj_check_insns(const struct bpf_insn *ins, size_t n, const char *path,
		const char *sec, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ins[i].code == (BPF_JMP | BPF_CALL) &&
		    ins[i].src_reg == BPF_PSEUDO_CALL) {
			snprintf(err, errlen, "%s: %s: instruction %zu calls a "
				 "BPF function: rte_bpf runs one function "
				 "(make helpers static __always_inline)",
				 path, sec, i);
			return -ENOTSUP;
		}
		if (ins[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    ins[i].src_reg != 0) {
			snprintf(err, errlen, "%s: %s: instruction %zu loads a "
				 "map or symbol address: not supported",
				 path, sec, i);
			return -ENOTSUP;
		}
	}
	return 0;
}

static int
obj_copy(struct bpf_object *obj, struct bpf_program *prog, const char *path,
	 struct ibex_bpf_code *code, char *err, size_t errlen)
{
	const char *sec = bpf_program__section_name(prog);
	const struct bpf_insn *ins = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);
	struct bpf_map *map;
	int ret;

	map = bpf_object__next_map(obj, NULL);
	if (map != NULL) {
		snprintf(err, errlen, "%s: has map or global data '%s': rte_bpf "
			 "programs have none (use constants, no static "
			 "tables)", path, bpf_map__name(map));
		return -ENOTSUP;
	}
	if (n == 0 || ins == NULL) {
		snprintf(err, errlen, "%s: %s: empty program", path, sec);
		return -EINVAL;
	}
	if (n > IBEX_BPF_MAX_INSNS) {
		snprintf(err, errlen, "%s: %s: %zu instructions, more than %d",
			 path, sec, n, IBEX_BPF_MAX_INSNS);
		return -E2BIG;
	}
	ret = obj_check_insns(ins, n, path, sec, err, errlen);
	if (ret < 0)
		return ret;
	code->insns = malloc(n * sizeof(*ins));
	if (code->insns == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(code->insns, ins, n * sizeof(*ins));
	code->nb_insns = (uint32_t)n;
	code->btf = bpf_object__btf(obj) != NULL;
	snprintf(code->section, sizeof(code->section), "%s", sec);
	snprintf(code->name, sizeof(code->name), "%s", bpf_program__name(prog));
	return 0;
}

/*
 * The first section of the ELF object at @p path that holds global data
 * or maps: .data*, .rodata*, .bss*, .maps or maps, allocated and not
 * empty. libbpf refuses some of them itself, with less telling codes: a
 * small static const table goes to a mergeable-constant section such as
 * .rodata.cst16, which libbpf takes for no map, so the relocation
 * against it fails as ENOENT. @return true with the name in @p name.
 */
static bool
obj_data_section(const char *path, char *name, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	bool found = false;
	FILE *f = fopen(path, "rb");
	unsigned int i;

	if (f == NULL)
		return false;
	if (fread(&eh, sizeof(eh), 1, f) != 1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (sh == NULL || fseek(f, (long)eh.e_shoff, SEEK_SET) != 0 ||
	    fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum)
		goto out;
	if (sh[eh.e_shstrndx].sh_size == 0 ||
	    sh[eh.e_shstrndx].sh_size > (1u << 20))
		goto out;
	names = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
	if (names == NULL ||
	    fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) != 0 ||
	    fread(names, sh[eh.e_shstrndx].sh_size, 1, f) != 1)
		goto out;
	for (i = 0; i < eh.e_shnum && !found; i++) {
		const char *n;

		if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size ||
		    !(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_size == 0)
			continue;
		n = names + sh[i].sh_name;
		if (strncmp(n, ".data", 5) == 0 ||
		    strncmp(n, ".rodata", 7) == 0 ||
		    strncmp(n, ".bss", 4) == 0 || strcmp(n, ".maps") == 0 ||
		    strcmp(n, "maps") == 0) {
			snprintf(name, len, "%s", n);
			found = true;
		}
	}
out:
	free(names);
	free(sh);
	fclose(f);
	return found;
}

int
ibex_bpf_obj_read(const char *path, const char *section,
		  struct ibex_bpf_code *code, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "ibex");
	libbpf_print_fn_t old;
	struct bpf_object *obj;
	struct bpf_program *prog;
	int ret;

	memset(code, 0, sizeof(*code));
	obj_last_msg[0] = '\0';
	old = libbpf_set_print(obj_print);
	obj = bpf_object__open_file(path, &opts);
	ret = obj == NULL ? -errno : 0;
	libbpf_set_print(old);
	if (obj == NULL) {
		char why[128];
		const char *msg = obj_last_msg;

		if (ret == 0)
			ret = -EINVAL;
		if (obj_data_section(path, why, sizeof(why))) {
			snprintf(err, errlen, "%s: has map or global data "
				 "'%s': rte_bpf programs have none (use "
				 "constants, no static tables)", path, why);
			return -ENOTSUP;
		}
		libbpf_strerror(ret, why, sizeof(why));
		if (strncmp(msg, "libbpf: ", 8) == 0)
			msg += 8;
		snprintf(err, errlen, "%s: %s%s%s", path, why,
			 msg[0] != '\0' ? ": libbpf: " : "", msg);
		/* libbpf's own codes (4000 and up) are not errno values. */
		return ret <= -4000 ? -EINVAL : ret;
	}
	prog = obj_pick(obj, section, path, err, errlen);
	if (prog == NULL) {
		ret = -ENOENT;
		goto out;
	}
	ret = obj_copy(obj, prog, path, code, err, errlen);
out:
	bpf_object__close(obj);
	return ret;
}

void
ibex_bpf_code_free(struct ibex_bpf_code *code)
{
	free(code->insns);
	code->insns = NULL;
	code->nb_insns = 0;
}
