# SPDX-License-Identifier: GPL-2.0
#
# wult: top-level build. `make` builds everything, `make check` runs every
# test, `make run` measures (inside a QEMU guest unless told otherwise),
# `make bench` runs the benchmarks. Outputs go to build/.

BUILD      := $(CURDIR)/build
SRCTAR     := /usr/src/linux-source-6.1.tar.xz
LSRC       := $(BUILD)/linux-src
LIBPERF    := $(BUILD)/libperf
DEPS_STAMP := $(BUILD)/.deps

CC         ?= gcc
PKGS       := libtraceevent libelf libzstd
WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE_CFLAGS := -std=gnu11 -g -D_GNU_SOURCE $(WARN) -Ilib/include \
	-Iperf-plugin/wult -Ikernel/uapi -I$(LIBPERF)/include
LDLIBS     := $(LIBPERF)/lib/libperf.a $(LSRC)/tools/lib/api/libapi.a \
	-ltraceevent -lelf -lzstd -lm -lpthread
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

# Two variants of everything in user space: rel (optimised, shipped, used by
# benchmarks and the guest) and san (ASan/UBSan, used by unit tests). rel is
# link-time optimised: the per-datapoint calls from wult into libwult
# (statistics, decoding, the reader) inline across files, ~12% less CPU for
# wult report (tests/bench/bench_datapath.c); gcc-ar keeps the archive's
# LTO symbols.
rel_CFLAGS := $(BASE_CFLAGS) -O2 -flto=auto -ffat-lto-objects
san_CFLAGS := $(BASE_CFLAGS) -O1 $(SAN)
rel_LDFLAGS := -flto=auto
san_LDFLAGS := $(SAN)
# pic: position-independent libwult for the plugins perf loads and
# libwult.so, its objects built -fvisibility=hidden: only the API (the
# declarations of lib/include/wult/*.h, in a visibility push(default)) is
# visible outside, and libwult.so exports what lib/libwult.map lists.
pic_CFLAGS := $(BASE_CFLAGS) -O2 -fPIC
pic_LDFLAGS :=
$(BUILD)/pic/lib/%.o: pic_CFLAGS += -fvisibility=hidden

# libwult: a folder per concept (lib/README.md), one level or two deep.
LIB_SRCS    := $(wildcard lib/*/*.c lib/*/*/*.c)
PLUGIN_SRCS := $(wildcard perf-plugin/wult/*.c perf-plugin/wult/*/*.c)
TEST_SRCS   := $(wildcard tests/unit/test_*.c)
BENCH_SRCS  := $(wildcard tests/bench/bench_*.c)
FUZZ_SRCS   := $(wildcard tests/fuzz/fuzz_*.c)
TOOL_SRCS   := $(wildcard tests/tools/*.c)

lib_objs     = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(LIB_SRCS))
plugin_objs  = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(PLUGIN_SRCS))

TESTS   := $(patsubst tests/unit/%.c,$(BUILD)/san/tests/%,$(TEST_SRCS))
BENCHES := $(patsubst tests/bench/%.c,$(BUILD)/rel/bench/%,$(BENCH_SRCS))
TOOLS   := $(patsubst tests/tools/%.c,$(BUILD)/rel/tools/%,$(TOOL_SRCS))
WULT    := $(BUILD)/rel/wult
WULT_SAN := $(BUILD)/san/wult
REPLAYS := $(patsubst tests/fuzz/%.c,$(BUILD)/san/fuzz/%,$(FUZZ_SRCS))

# The three Debian kernels every kernel test runs on.
KTAGS   := 6.1 6.12 6.12-rt
KMODS   := $(foreach t,$(KTAGS),$(BUILD)/kernel/$(t)/wult.ko \
	$(BUILD)/kernel/$(t)/wult_refidle.ko)
KSRCS   := $(wildcard kernel/*.[ch] kernel/*/*.[ch] kernel/*/*/*.[ch] kernel/Kbuild \
	kernel/Makefile)

.PHONY: all deps user modules fuzzers check run bench fuzz soak clean install-plugins \
	man install uninstall dkms-src dkms-install dkms-uninstall
.SECONDARY:

all: user modules

# scripts/deps is a quick no-op when everything is installed, so the
# top-level commands always run it first, each with its own list (run's
# packages are what building needs).
deps:
	scripts/deps check
$(DEPS_STAMP): scripts/deps
	scripts/deps run
	@mkdir -p $(BUILD) && touch $@

# libperf, libapi and checkpatch.pl come from Debian's linux-source-6.1.
$(LSRC)/.extracted: $(DEPS_STAMP)
	rm -rf $(LSRC) && mkdir -p $(LSRC)
	tar -xJf $(SRCTAR) -C $(LSRC) --strip-components=1 --wildcards \
		'linux-source-6.1/tools/lib/perf' 'linux-source-6.1/tools/lib/api' \
		'linux-source-6.1/tools/lib/zalloc.c' 'linux-source-6.1/tools/lib/str_error_r.c' \
		'linux-source-6.1/tools/include' 'linux-source-6.1/tools/build' \
		'linux-source-6.1/tools/scripts' 'linux-source-6.1/tools/arch/x86/include' \
		'linux-source-6.1/scripts/checkpatch.pl' 'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch' \
		'linux-source-6.1/scripts/extract-vmlinux'
	touch $@

# DESTDIR= : a `make install DESTDIR=...` that builds libperf first must
# not stage libperf's own install.
$(LIBPERF)/lib/libperf.a: $(LSRC)/.extracted
	$(MAKE) -s -C $(LSRC)/tools/lib/perf prefix=$(LIBPERF) libdir_relative=lib \
		DESTDIR= >/dev/null
	$(MAKE) -s -C $(LSRC)/tools/lib/perf prefix=$(LIBPERF) libdir_relative=lib \
		DESTDIR= install_lib install_headers install_pkgconfig >/dev/null
	$(MAKE) -s -C $(LSRC)/tools/lib/api DESTDIR= >/dev/null
	@test -f $@

# ---- user space --------------------------------------------------------
$(BUILD)/%/.dir:
	@mkdir -p $(dir $@) && touch $@

define variant
$(BUILD)/$(1)/%.o: %.c $(LIBPERF)/lib/libperf.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) -MMD -MP -c -o $$@ $$<

$(BUILD)/$(1)/libwult.a: $(call lib_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && gcc-ar rcs $$@ $$^

$(BUILD)/$(1)/wult: $(call plugin_objs,$(1)) $(BUILD)/$(1)/libwult.a
	$$(CC) $$($(1)_LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(eval $(call variant,rel))
$(eval $(call variant,san))
$(eval $(call variant,pic))

# wult deploy's copy for other systems: rel's objects linked statically, so
# that it runs on a system under test whatever libraries that has. Linked
# without LTO (the objects carry both forms): a second, not a minute. The
# linker's warning about libtraceevent's plugin loader (dlopen in a static
# program) is left out: wult never loads libtraceevent plugins.
$(BUILD)/rel/wult-static: $(call plugin_objs,rel) $(BUILD)/rel/libwult.a
	@$(CC) -fno-lto -static -o $@ $^ $(LDLIBS) -lz 2> $@.log; r=$$?; \
	grep -v -e "in function .load_plugin.:" -e "Using 'dlopen' in statically linked" \
		$@.log >&2; rm -f $@.log; exit $$r
user: $(BUILD)/rel/wult-static

$(BUILD)/san/tests/%: $(BUILD)/san/tests/unit/%.o $(BUILD)/san/libwult.a
	@mkdir -p $(dir $@)
	$(CC) $(san_LDFLAGS) -o $@ $^ $(LDLIBS)
# test_opts holds the command's option tables (perf-plugin/wult/opts.c).
$(BUILD)/san/tests/test_opts: $(BUILD)/san/perf-plugin/wult/opts.o

# The fuzz targets without libFuzzer, under ASan/UBSan: make check replays
# their corpora with these (tests/fuzz/replay.c); make fuzz explores with
# the libFuzzer builds below.
$(BUILD)/san/fuzz/%: $(BUILD)/san/tests/fuzz/%.o $(BUILD)/san/tests/fuzz/replay.o \
		$(BUILD)/san/libwult.a
	@mkdir -p $(dir $@)
	$(CC) $(san_LDFLAGS) -o $@ $^ $(LDLIBS)

# Helpers of the test harness (scripts/vm-run), of host and of VM tests.
$(BUILD)/rel/tools/%: $(BUILD)/rel/tests/tools/%.o $(BUILD)/rel/libwult.a
	@mkdir -p $(dir $@)
	$(CC) $(rel_LDFLAGS) -o $@ $^ $(LDLIBS)

# test_pdwrite kills its writer before chosen pwrite() calls.
$(BUILD)/san/tests/test_pdwrite: LDLIBS += -Wl,--wrap=pwrite

$(BUILD)/rel/bench/%: $(BUILD)/rel/tests/bench/%.o $(BUILD)/rel/libwult.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS)

# Plugins loaded by stock perf and trace-cmd. They take libtraceevent's
# symbols from the program loading them (perf carries its own copy), so
# they do not link it.
# Each kind in its own directory: libtraceevent loads every .so of its.
TEP_PLUGINS := $(patsubst perf-plugin/traceevent/%.c,$(BUILD)/plugins/traceevent/%.so,\
	$(wildcard perf-plugin/traceevent/*.c))
$(BUILD)/plugins/traceevent/%.so: perf-plugin/traceevent/%.c
	@mkdir -p $(dir $@)
	$(CC) $(rel_CFLAGS) -fPIC -shared -o $@ $<

# perf dlfilters: libwult and a private libtraceevent linked in and hidden
# (--exclude-libs), so perf's own exported tep_* symbols cannot interpose.
DLFILTERS := $(patsubst perf-plugin/dlfilter/%.c,$(BUILD)/plugins/dlfilter/%.so,\
	$(wildcard perf-plugin/dlfilter/*.c))
$(BUILD)/plugins/dlfilter/%.so: perf-plugin/dlfilter/%.c $(BUILD)/pic/libwult.a
	@mkdir -p $(dir $@)
	$(CC) $(pic_CFLAGS) -shared -o $@ $< $(BUILD)/pic/libwult.a \
		-Wl,--exclude-libs,ALL -Wl,-Bsymbolic -Wl,-z,defs \
		-l:libtraceevent.a -lzstd -lm -lc

# libwult as a shared library, as tools/lib/perf builds libperf.so: its
# exports are the API alone (tests/host/test_layers.sh holds it).
$(BUILD)/pic/libwult.so: $(call lib_objs,pic) lib/libwult.map
	$(CC) -shared -Wl,-soname,libwult.so.0 -Wl,--version-script=lib/libwult.map \
		-Wl,-z,defs -o $@ $(call lib_objs,pic) -ltraceevent -lelf -lzstd -lm -lpthread

# The HTML report's assets are embedded with .incbin (report_html.c), which
# -MMD does not see: Chart.js from Debian's libjs-chart.js, our script, style.
HTML_ASSETS := /usr/share/javascript/chart.js/chart.min.js perf-plugin/wult/html/report.js \
	perf-plugin/wult/html/report.css
$(BUILD)/rel/perf-plugin/wult/report/report_html.o \
$(BUILD)/san/perf-plugin/wult/report/report_html.o: $(HTML_ASSETS)

# man(1) pages, generated from Documentation/wult*.md.
VERSION  := $(shell sed -n 's/^\#define WULT_VERSION "\(.*\)"/\1/p' perf-plugin/wult/cmds.h)
MANPAGES := $(patsubst Documentation/%.md,$(BUILD)/man/man1/%.1,\
	$(wildcard Documentation/wult*.md))
$(BUILD)/man/man1/%.1: Documentation/%.md scripts/md2man perf-plugin/wult/cmds.h
	@mkdir -p $(dir $@)
	scripts/md2man $(VERSION) $< > $@.tmp && mv $@.tmp $@
man: $(MANPAGES)

# wult script finds the perf scripts of the build's source through it.
$(BUILD)/src:
	@mkdir -p $(BUILD)
	ln -sfn $(CURDIR) $@

user: $(WULT) $(WULT_SAN) $(TESTS) $(REPLAYS) $(BENCHES) $(TOOLS) $(TEP_PLUGINS) $(DLFILTERS) \
	$(BUILD)/pic/libwult.so $(MANPAGES) $(BUILD)/src

-include $(shell find $(BUILD)/rel $(BUILD)/san $(BUILD)/pic $(BUILD)/fuzz -name '*.d' 2>/dev/null)

# ---- kernel module, once per test kernel --------------------------------
# The test kernels' headers: Debian's packages unpacked into the build tree
# by scripts/kpkg (fetched on first use), not installed on the host.
$(BUILD)/kernel/%/wult.ko: $(KSRCS) $(DEPS_STAMP)
	@kdir=$$(scripts/kdir $*) && mkdir -p $(dir $@) && cp -a kernel/. $(dir $@) && \
	echo "  MODULE  $@ (KDIR=$$kdir)" && \
	$(MAKE) -s -C $(dir $@) KDIR=$$kdir W=1 $(if $(filter host,$*),,KCFLAGS=-Werror)

# The reference cpuidle driver is built by the same Kbuild run.
$(BUILD)/kernel/%/wult_refidle.ko: $(BUILD)/kernel/%/wult.ko
	@test -f $@

modules: $(KMODS)

# ---- fuzz targets (libFuzzer, clang) ------------------------------------
# libwult is compiled once for all targets (coverage-instrumented, without
# libFuzzer's main: fuzzer-no-link); compiling it into each target cost
# about 60% of a clean build's CPU.
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SAN := -fsanitize=address,undefined
FUZZ_CFLAGS := $(BASE_CFLAGS) -O1 $(FUZZ_SAN)

$(BUILD)/fuzz/lib/%.o: lib/%.c $(LIBPERF)/lib/libperf.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/libwult.a: $(patsubst lib/%.c,$(BUILD)/fuzz/lib/%.o,$(LIB_SRCS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/fuzz/libwult.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< \
		$(BUILD)/fuzz/libwult.a $(LDLIBS)

fuzzers: $(FUZZERS)

# ---- top-level commands -------------------------------------------------
# KERNELS="6.1" and SUITES="unit vm" narrow a check run.
check: deps
	$(MAKE) -j$$(nproc) all
	scripts/run-tests --build $(BUILD) $(if $(KERNELS),--kernels "$(KERNELS)") \
		$(if $(SUITES),--suites "$(SUITES)")

# make run builds what the measurement uses (the wult command, the plugins
# and the modules of the guest's kernel, which wult-run makes itself), not
# the tests, and installs no test-only package.
run:
	scripts/deps run
	$(MAKE) -j$$(nproc) $(WULT) $(TEP_PLUGINS) $(DLFILTERS)
	scripts/wult-run --build $(BUILD) $(RUN_ARGS)

bench:
	scripts/deps bench
	$(MAKE) all
	scripts/run-bench --build $(BUILD)

# The in-kernel histograms' soak on 6.12-rt: SOAK_MINUTES (10) of perf
# stat with nothing recorded, memory sampled each minute (tests/soak/khist.sh,
# Documentation/kernel.md). About 12 minutes: not part of make check.
SOAK_MINUTES ?= 10
soak: deps
	$(MAKE) all
	scripts/vm-run --kernel 6.12-rt --timeout $$(( $(SOAK_MINUTES) * 60 + 600 )) \
		--out $(BUILD)/soak tests/soak/khist.sh $(SOAK_MINUTES)

# Long fuzzing runs: FUZZ_SECONDS (10 minutes) per target.
FUZZ_SECONDS ?= 600
fuzz:
	scripts/deps fuzz
	$(MAKE) fuzzers
	for f in $(FUZZERS); do scripts/fuzz-run $$f $(FUZZ_SECONDS) || exit 1; done

# The libtraceevent plugin where perf 6.1 and trace-cmd both look for it.
PLUGIN_DIR ?= $(HOME)/.local/lib/traceevent/plugins
install-plugins: $(TEP_PLUGINS)
	install -d $(DESTDIR)$(PLUGIN_DIR)
	install -m 0644 $(TEP_PLUGINS) $(DESTDIR)$(PLUGIN_DIR)/

# ---- install (PREFIX, DESTDIR), DKMS ------------------------------------
# The wult command finds its plugins and scripts relative to itself
# (BINDIR/../share/wult), so any PREFIX works. The libtraceevent plugin is
# also linked into libtraceevent's system directory, where trace-cmd looks;
# perf 6.1 looks only in $TRACEEVENT_PLUGIN_DIR, which profile.d/wult.sh
# sets for login shells.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SHAREDIR    ?= $(PREFIX)/share/wult
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc
TEP_SYSDIR  ?= $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null || \
	echo /usr/lib)/traceevent/plugins
DKMS_SRC    ?= /usr/src/wult-$(VERSION)
PY_SCRIPTS  := $(wildcard scripts/perf/*.py)

install: $(WULT) $(BUILD)/rel/wult-static $(TEP_PLUGINS) $(DLFILTERS) $(MANPAGES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/traceevent \
		$(DESTDIR)$(SHAREDIR)/dlfilter $(DESTDIR)$(SHAREDIR)/scripts \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(SYSCONFDIR)/profile.d $(DESTDIR)$(TEP_SYSDIR)
	install -m 0755 $(WULT) $(DESTDIR)$(BINDIR)/wult
	install -D -m 0755 $(BUILD)/rel/wult-static $(DESTDIR)$(PREFIX)/lib/wult/wult-static
	install -m 0644 $(TEP_PLUGINS) $(DESTDIR)$(SHAREDIR)/traceevent/
	install -m 0644 $(DLFILTERS) $(DESTDIR)$(SHAREDIR)/dlfilter/
	install -m 0644 $(PY_SCRIPTS) $(DESTDIR)$(SHAREDIR)/scripts/
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 scripts/install/wult.bash-completion $(DESTDIR)$(BASHCOMPDIR)/wult
	sed 's|@TEPDIR@|$(SHAREDIR)/traceevent|' scripts/install/wult.profile \
		> $(DESTDIR)$(SYSCONFDIR)/profile.d/wult.sh
	ln -sfn $(SHAREDIR)/traceevent/plugin_wult.so $(DESTDIR)$(TEP_SYSDIR)/plugin_wult.so

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/wult $(DESTDIR)$(BASHCOMPDIR)/wult \
		$(DESTDIR)$(SYSCONFDIR)/profile.d/wult.sh \
		$(DESTDIR)$(TEP_SYSDIR)/plugin_wult.so \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))
	rm -rf $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(PREFIX)/lib/wult

# The module's sources and dkms.conf in DKMS_SRC; dkms-install registers,
# builds and installs them for the running kernel (and, through DKMS, for
# every kernel installed later).
dkms-src:
	install -d $(DESTDIR)$(DKMS_SRC)
	for f in $(KSRCS); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$${f#kernel/} || exit 1; done
	sed 's|@VERSION@|$(VERSION)|' scripts/install/dkms.conf > $(DESTDIR)$(DKMS_SRC)/dkms.conf

dkms-install: dkms-src
	dkms add -m wult -v $(VERSION)
	dkms build -m wult -v $(VERSION)
	dkms install -m wult -v $(VERSION)

dkms-uninstall:
	-dkms remove -m wult -v $(VERSION) --all
	rm -rf $(DESTDIR)$(DKMS_SRC)

clean:
	rm -rf $(BUILD)
