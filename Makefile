# capinit -- GNU make.
#
#   make            install missing Debian packages (as root), build libcap
#                   and skalibs for musl into build/sysroot, then the static
#                   binaries in build/bin/ and the man pages in build/man/
#   make check      build, then run every test tier; ends "N passed, N failed"
#   make demo       boot the example root-free appliance in QEMU and show it
#   make image      build it (build/appliance/); make boot runs it interactively
#   make oci        the container image, build/oci/capinit.tar (OCI layout);
#                   make check-oci runs it under runc and crun
#   make install    DESTDIR= PREFIX= (default /usr/local; binaries in sbin,
#                   capctl-import and capctl-learn in lib/capinit)
#   make clean      remove build products, keep the sysroot
#   make distclean  remove build/ entirely
#
#   make ARCH=arm64 (or armhf)   the same for that architecture, into
#                   build/ARCH/, with Debian's cross compiler and musl;
#                   check, demo, image, boot and install work there too
#                   (the tests and the image builder run ARCH's programs
#                   under qemu-user, the appliance boots in qemu-system)

VERSION := 0.1.0
B := build
SYSROOT := $(B)/sysroot
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
# capctl looks for its helpers beside itself, then in ../lib/capinit from
# its own directory: a LIBEXECDIR that is not SBINDIR/../lib/capinit
# leaves capctl import without its program
LIBEXECDIR ?= $(PREFIX)/lib/capinit
MANDIR ?= $(PREFIX)/share/man

CC := musl-gcc
CFLAGS ?= -Os -g0
# link-time optimization: functions inlined and dropped across files (arm64's
# capinit 205208 B without, 198872 B with; LTO= builds without it); at the
# link, gcc is given CFLAGS again, as its manual asks
LTO ?= -flto=auto

# ---- the target architecture ---------------------------------------------
# DEB_ARCH is the target's name in Debian (dpkg), written to $(B)/arch for
# the scripts (kernel, busybox, image builder, QEMU).  ARCH=arm64 or armhf
# builds for that architecture into build/ARCH/ with Debian's cross
# compiler and its musl (musl-dev:ARCH through multiarch), both installed by
# the first make (mk/deps.sh cross-ARCH); libcap and skalibs are built from
# Debian's sources for them, as natively.  CROSS_COMPILE=PREFIX uses a musl
# toolchain of one's own instead (PREFIXgcc, no specs); CC= overrides both.
# SYSROOT=DIR (libcap and skalibs for the target, say Buildroot's staging
# directory; empty: the compiler's own paths) builds nothing but capinit:
# no package is installed, no source fetched.
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
DEB_ARCH := $(HOST_ARCH)
ifneq ($(filter-out $(HOST_ARCH) $(shell uname -m),$(ARCH)),)
DEB_ARCH := $(ARCH)
ifeq ($(ARCH),arm64)
GNU_TRIPLET := aarch64-linux-gnu
MUSL_TRIPLET := aarch64-linux-musl
# GCC keeps AArch64's frame records in every function that calls another
# unless told, and addresses anything through ADRP+ADD pairs; capinit needs
# neither (no unwinder, and all of it lies within 1 MiB: the tiny model's
# single ADR; a program that outgrew it would fail to link: the test
# fixtures, whose buffers are larger, are built without).  7.7 KB of
# capinit's 209 KB (issue 33's checks put it over its 200 KB budget).
ARCH_CFLAGS := -fomit-frame-pointer -mcmodel=tiny
else ifeq ($(ARCH),armhf)
GNU_TRIPLET := arm-linux-gnueabihf
MUSL_TRIPLET := arm-linux-musleabihf
else
$(error ARCH=$(ARCH): make knows arm64 and armhf (Debian's names); with a toolchain of your own, give CC= or CROSS_COMPILE=, and SYSROOT=)
endif
B := build/$(ARCH)
SYSROOT := $(B)/sysroot
DEPS_ARCH := cross-$(ARCH)
# arm64 aligns segments to 64 KiB: the RELRO segment, which nothing
# protects in a static musl binary (only a dynamic linker would), put up
# to 64 KiB of padding into each binary (capinit 198 KB, without 179 KB).
# And the data segment follows the code in the file, at the same offset
# modulo 64 KiB, instead of at the next 4 KiB (ld's common page size):
# that rounding put up to 4 KB of zeros into the file (arm64's capinit
# 206000 B, with 204112 B); any kernel page size up to 64 KiB maps it
CROSS_LDFLAGS := -Wl,-z,norelro -Wl,-z,common-page-size=16
ifeq ($(origin CROSS_COMPILE),undefined)
CROSS_COMPILE := $(GNU_TRIPLET)-
CC := $(CROSS_COMPILE)gcc -specs /usr/lib/$(MUSL_TRIPLET)/musl-gcc.specs
KERNEL_INCLUDE := /usr/$(GNU_TRIPLET)/include
else
CC := $(CROSS_COMPILE)gcc
KERNEL_INCLUDE := none
endif
endif
# a Debian package of the target (busybox-static:armhf), for the image
DEB_QUAL := $(if $(filter-out $(HOST_ARCH),$(DEB_ARCH)),:$(DEB_ARCH))
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DCAPINIT_VERSION='"$(VERSION)"' \
  $(if $(SYSROOT),-I$(SYSROOT)/include) $(WARN) -ffunction-sections -fdata-sections \
  -fno-asynchronous-unwind-tables -fno-unwind-tables -fstack-protector-strong $(LTO) $(ARCH_CFLAGS) $(CFLAGS)
LDFLAGS ?=
ALL_LDFLAGS := -static -s -Wl,--gc-sections $(CROSS_LDFLAGS) $(if $(SYSROOT),-L$(SYSROOT)/lib) $(LTO) \
  $(if $(LTO),$(ARCH_CFLAGS) $(CFLAGS)) $(LDFLAGS)
LIBS := -lskarnet -lcap
SYSROOT_STAMP := $(SYSROOT)/.done
# a sysroot of one's own (SYSROOT= on the command line): nothing to build,
# no Debian package to install
ifneq ($(filter command line environment,$(origin SYSROOT)),)
SYSROOT_STAMP :=
OWN_SYSROOT := 1
endif
# Test fixtures (the probe, the test service...) are what the tests look
# at, not what they test: never sanitized (a sanitizer runtime misbehaves
# in set-id and file-capability processes).
FIXTURE_CFLAGS = $(filter-out $(ARCH_CFLAGS),$(ALL_CFLAGS))
FIXTURE_LDFLAGS = $(filter-out $(ARCH_CFLAGS),$(ALL_LDFLAGS))

# `make check-asan` builds everything again in build-asan/ with clang,
# glibc, Debian's own libcap and skalibs, AddressSanitizer and UBSan
# (SAN=1), then runs the unit and system tests against it.
ifeq ($(SAN),1)
B := build-asan
CC := clang-14
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DCAPINIT_VERSION='"$(VERSION)"' $(WARN) -g -O1 \
  -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
ALL_LDFLAGS := -fsanitize=address,undefined
SYSROOT_STAMP := $(B)/.deps-san
FIXTURE_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1
FIXTURE_LDFLAGS := -static
endif

# `make` alone builds the programs and man pages (the rules below come first).
.DEFAULT_GOAL := all

# The flags each kind of object is built with, in a file that changes only
# when they do: a prerequisite of those objects.  make compares only times,
# so a change of flags alone (say, the fixtures no longer sanitized) rebuilt
# nothing, and with `.SECONDARY:` not even a binary whose object was gone.
FLAGS_STAMP := $(B)/.flags
FIXTURE_FLAGS_STAMP := $(B)/.flags-fixture
FLAGS_TEXT := $(strip $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS))
FIXTURE_FLAGS_TEXT := $(strip $(CC) $(FIXTURE_CFLAGS) $(FIXTURE_LDFLAGS))
$(FLAGS_STAMP): export STAMP_TEXT := $(FLAGS_TEXT)
$(FIXTURE_FLAGS_STAMP): export STAMP_TEXT := $(FIXTURE_FLAGS_TEXT)
ifneq ($(strip $(file <$(FLAGS_STAMP))),$(FLAGS_TEXT))
$(FLAGS_STAMP): FORCE
endif
ifneq ($(strip $(file <$(FIXTURE_FLAGS_STAMP))),$(FIXTURE_FLAGS_TEXT))
$(FIXTURE_FLAGS_STAMP): FORCE
endif
$(FLAGS_STAMP) $(FIXTURE_FLAGS_STAMP):
	@mkdir -p $(@D)
	@printf '%s\n' "$$STAMP_TEXT" > $@
.PHONY: FORCE
FORCE:

CONF_SRC := $(wildcard conf/*.c)
CONF_OBJ := $(CONF_SRC:%.c=$(B)/obj/%.o)
# The three programs and what they share: the privilege engine (engine/),
# the configuration and the control protocol's verbs (conf/), and what
# reads and judges the live system (inspect/: capinit's and capctl's).
ENGINE_SRC := engine/privilege.c engine/container.c engine/netcard.c engine/netlink.c engine/filter.c engine/reaper.c
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(B)/obj/%.o)
INSPECT_SRC := $(wildcard inspect/*.c)
INSPECT_OBJ := $(INSPECT_SRC:%.c=$(B)/obj/%.o)
SUPERVISOR_OBJ := $(patsubst %.c,$(B)/obj/%.o,supervise/supervisor.c supervise/service.c supervise/spawn.c supervise/order.c \
  supervise/load.c supervise/mkdir_p.c supervise/command.c supervise/lookup.c \
  supervise/log.c supervise/console.c supervise/notify.c supervise/notify_parse.c supervise/control.c supervise/peer.c supervise/control_dispatch.c supervise/control_records.c \
  supervise/control_reply.c supervise/initctl.c supervise/maincmd.c)
INIT_OBJ := $(patsubst %.c,$(B)/obj/%.o,init/capinit.c init/boot.c init/fstab.c init/shutdown.c init/step.c)
# each program's objects: capinit_OBJ, capctl_OBJ, capexec_OBJ
capinit_OBJ := $(INIT_OBJ) $(SUPERVISOR_OBJ) $(ENGINE_OBJ) $(INSPECT_OBJ) $(CONF_OBJ)
# capinit's printf family is conf/fmt.c's, under libc's names
# (init/libc_fmt.c): musl's printf engine brought libgcc's long double
# arithmetic along (arm64's capinit 203480 B with it, 182928 B without).
# --wrap makes any reference to vfprintf, the engine's entry that musl's
# printf functions all call, an undefined __wrap_vfprintf: the link fails
# instead of growing back.  Not in the sanitizer build, whose runtime
# intercepts these names (and whose libc is glibc).
ifneq ($(SAN),1)
capinit_OBJ += $(B)/obj/init/libc_fmt.o
CAPINIT_LDFLAGS := -Wl,--wrap=vfprintf
endif
# capctl import is a program of its own, capctl-import, which capctl
# executes: an administrator's tool for leaving systemd, on a full machine
# (capctl was 227024 B with it, over its 200 KB budget; 149200 B without);
# it links conf/ only
IMPORT_SRC := $(wildcard capctl/import*.c) capctl/unit_parse.c
# capctl learn is capctl-learn, for the same reason: it traces a service
# on an administrator's machine, and needs capexec beside it
LEARN_SRC := $(wildcard capctl/learn*.c)
capctl_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(filter-out $(IMPORT_SRC) $(LEARN_SRC),$(wildcard capctl/*.c))) $(INSPECT_OBJ) \
  $(ENGINE_OBJ) $(CONF_OBJ)
capctl-import_OBJ := $(IMPORT_SRC:%.c=$(B)/obj/%.o) $(CONF_OBJ)
capctl-learn_OBJ := $(LEARN_SRC:%.c=$(B)/obj/%.o) $(CONF_OBJ)
capexec_OBJ := $(B)/obj/capexec/capexec.o $(ENGINE_OBJ) $(CONF_OBJ)
# PROGRAMS go to SBINDIR; HELPERS, which only another program runs, to
# LIBEXECDIR (PREFIX/lib/capinit, the package's /usr/lib/capinit, where
# capctl looks for them: docs/decisions.md)
PROGRAMS := capinit capctl capexec
HELPERS := capctl-import capctl-learn
BINS := $(PROGRAMS:%=$(B)/bin/%)
HELPER_BINS := $(HELPERS:%=$(B)/bin/%)
MANS := $(patsubst docs/%.scd,$(B)/man/%,$(wildcard docs/*.scd))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)

DEPS_STAMP := $(B)/.deps-build
CHECK_STAMP := $(B)/.deps-check

# Quiet by default: V=1 shows the commands.
ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @printf '  %-6s %s\n'
endif

.PHONY: all check demo install clean distclean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BINS) $(HELPER_BINS) $(MANS)

$(DEPS_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@$(if $(OWN_SYSROOT),true,sh mk/deps.sh build $(DEPS_ARCH))
	@touch $@

# the target's Debian architecture, for the scripts; rewritten when it changes
ARCH_FILE := $(B)/arch
ifneq ($(strip $(file <$(ARCH_FILE))),$(DEB_ARCH))
$(ARCH_FILE): FORCE
endif
$(ARCH_FILE):
	@mkdir -p $(@D)
	@echo $(DEB_ARCH) > $@

$(CHECK_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh check
	@touch $@

ifeq ($(SAN),1)
$(SYSROOT_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh build san
	@touch $@
else
$(SYSROOT_STAMP): mk/sysroot.sh | $(DEPS_STAMP)
	@echo "capinit: building libcap and skalibs for musl (once, into $(SYSROOT))"
	@sh mk/sysroot.sh $(B) $(if $(DEPS_ARCH),"$(CC)" "$(CROSS_COMPILE)" "$(KERNEL_INCLUDE)")
endif

$(B)/obj/%.o: %.c $(FLAGS_STAMP) | $(SYSROOT_STAMP)
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# One link recipe for every static program of ours (the three, and the
# test programs built from their code); the fixtures have their own flags.
define LINK
@mkdir -p $(@D)
$(say) LD $@
$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
endef
.SECONDEXPANSION:
$(BINS) $(HELPER_BINS): $(B)/bin/%: $$($$*_OBJ)
	$(LINK)
$(B)/bin/capinit: ALL_LDFLAGS += $(CAPINIT_LDFLAGS)

# Test-only programs: the credentials probe, capexec built with the
# fault-injection layer (-DPRIV_FAULT), which release builds never have,
# and capinit's fstab code outside PID 1 (fstab_try).
TEST_BINS := $(B)/tests/probe $(B)/tests/capexec-fault $(B)/tests/svc_helper $(B)/tests/secbits_try \
  $(B)/tests/fstab_try $(B)/tests/peek $(B)/tests/syscall_try $(B)/tests/learn_try
BUSYBOX := $(B)/debs/busybox-static/bin/busybox

$(BUSYBOX): mk/extract-deb.sh $(ARCH_FILE) | $(DEPS_STAMP)
	@sh mk/extract-deb.sh $(B) busybox-static$(DEB_QUAL)
	@touch $@

$(B)/tests/probe: $(B)/obj-fixture/tests/probe.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/tests/svc_helper: $(B)/obj-fixture/tests/svc_helper.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/tests/peek: $(B)/obj-fixture/tests/peek.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/tests/learn_try: $(B)/obj-fixture/tests/learn_try.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/tests/syscall_try: $(B)/obj-fixture/tests/syscall_try.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/tests/fstab_try: $(B)/obj/tests/fstab_try.o $(B)/obj/init/fstab.o $(B)/obj/init/step.o $(B)/obj/supervise/console.o \
  $(patsubst %,$(B)/obj/inspect/%.o,clock file mountinfo) $(CONF_OBJ)
	$(LINK)

$(B)/tests/secbits_try: $(B)/obj-fixture/tests/secbits_try.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(FIXTURE_LDFLAGS) -o $@ $^

$(B)/obj-fixture/%.o: %.c $(FIXTURE_FLAGS_STAMP) | $(SYSROOT_STAMP)
	@mkdir -p $(@D)
	$(say) CC $< [fixture]
	$(Q)$(CC) $(FIXTURE_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/obj-fault/%.o: %.c $(FLAGS_STAMP) | $(SYSROOT_STAMP)
	@mkdir -p $(@D)
	$(say) CC $< [fault]
	$(Q)$(CC) $(ALL_CFLAGS) -DPRIV_FAULT -MMD -MP -c -o $@ $<

$(B)/tests/capexec-fault: $(B)/obj-fault/capexec/capexec.o $(ENGINE_SRC:%.c=$(B)/obj-fault/%.o) $(CONF_OBJ)
	$(LINK)

# --- fuzzing (libFuzzer, clang, glibc + Debian's libcap) -------------------
# Fuzz targets link conf/ (with skalibs: a spec's digest), the pure models of inspect/ (explain, verdict)
# and the pure parsers of supervise/, built with ASan and UBSan.  `make
# check` runs each briefly; `make fuzz` runs each for FUZZ_SECONDS
# (default 300).
FUZZ_CC := clang-14
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -DCAPINIT_VERSION='"$(VERSION)"' \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := svc filecaps notify explain control fstab
FUZZ_BINS := $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
FUZZ_STAMP := $(B)/.deps-fuzz
FUZZ_SECONDS ?= 300
FUZZ_LIB_SRC := $(CONF_SRC) inspect/explain.c inspect/verdict.c supervise/notify_parse.c

$(FUZZ_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh fuzz
	@touch $@

# one compile of several sources: every header they could include counts
FUZZ_HEADERS := $(wildcard conf/*.h inspect/*.h supervise/*.h engine/*.h tests/fuzz/*.h)
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRC) $(FUZZ_HEADERS) | $(FUZZ_STAMP)
	@mkdir -p $(@D)
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB_SRC) -lcap -l:libskarnet.a

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(B) $(FUZZ_SECONDS)

$(B)/man/%: docs/%.scd | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(say) SCDOC $<
	$(Q)scdoc < $< > $@

# Unit tests: one static binary per file, linked with conf/.
$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(CONF_OBJ)
	$(LINK)

# capctl's command line is tested alone (it is not in conf/)
$(B)/tests/unit/test_capctl_args: $(B)/obj/capctl/capctl_args.o

# capctl import, alone: the unit syntax and the mapping (capctl/ is not in conf/)
$(B)/tests/unit/test_import: $(filter-out %/import_main.o,$(capctl-import_OBJ))

# capctl learn's reading of the trace, alone (capctl/ is not in conf/)
$(B)/tests/unit/test_learn: $(B)/obj/capctl/learn_trace.o $(B)/obj/capctl/learn_kprobe.o $(B)/obj/capctl/learn_record.o \
  $(B)/obj/capctl/learn_files.o

# the bounded step of PID 1, alone (init/ is not in conf/), with its clock
# and reader
$(B)/tests/unit/test_step: $(B)/obj/init/step.o $(B)/obj/inspect/clock.o $(B)/obj/inspect/file.o

# verify's judgement of a process, alone (inspect/ is not in conf/)
$(B)/tests/unit/test_verdict: $(B)/obj/inspect/verdict.o $(B)/obj/inspect/explain.o

# the state machine of a service, alone: its processes, clock and output
# are the test's own stubs
$(B)/tests/unit/test_machine: $(B)/obj/supervise/service.o

# make check: what it needs, gathered in CHECK_INPUTS by each block of this
# file (the one check rule is at the end), then tests/run
ifeq ($(DEPS_ARCH),)
CHECK_INPUTS := all $(UNIT_BINS) $(TEST_BINS) $(BUSYBOX) $(FUZZ_BINS) $(CHECK_STAMP) cross-inputs
CHECK_ENV = CROSS_CHECK="$(CROSS_CHECK)"
else
CHECK_INPUTS := check-inputs
CHECK_ENV :=
endif

.PHONY: check-asan check-asan-run
check-asan:
	@$(MAKE) --no-print-directory SAN=1 check-asan-run

check-asan-run: all $(UNIT_BINS) $(TEST_BINS) $(BUSYBOX) $(CHECK_STAMP)
	@CAPINIT_SAN=1 TIERS=system sh tests/run $(B)

# ---- QEMU tests (tests/qemu/) ---------------------------------------------
# The in-guest helper, and Debian's stock kernel unpacked under build/debs
# (the package linux-image-amd64 depends on; never installed on the host).
# tests/run boots the images (tests/qemu/test_boot.sh) after the system tests.
QEMU_TOOL := $(B)/tests/qemu_tool
QEMU_KERNEL := $(B)/debs/linux-image.name

$(QEMU_TOOL): $(B)/obj/tests/qemu/guest_tool.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

$(QEMU_KERNEL): tests/qemu/kernel.sh mk/extract-deb.sh $(ARCH_FILE) | $(DEPS_STAMP)
	@sh tests/qemu/kernel.sh $(B)

CHECK_INPUTS += $(QEMU_TOOL) $(QEMU_KERNEL)

# the QEMU tier alone (about a minute)
.PHONY: check-qemu
check-qemu: all $(TEST_BINS) $(BUSYBOX) $(QEMU_TOOL) $(QEMU_KERNEL) $(CHECK_STAMP)
	@sh tests/qemu/test_boot.sh $(B)
# ---- end of the QEMU tests ------------------------------------------------

# ---- the appliance (rootfs/): make image, make demo, make boot -----------
#   make image [FORMAT=cpio|ext4|squashfs]   build/appliance/: the root-free
#       appliance (initramfs.cpio.gz; or rootfs.FORMAT + stage1.cpio.gz),
#       report.txt (every service's predicted privileges, file caps, sizes)
#   make demo    builds what it needs, boots the appliance with its demo
#       runner in QEMU (TCG), shows what each service may do, powers off
#   make boot [FORMAT=...]   the appliance, interactive: the console shell
#       on this terminal, http://127.0.0.1:8080/ is the guest's port 80
# Building an image needs root (setcap, chroot); tests/qemu/test_appliance.sh
# boots it in make check.
FORMAT ?= cpio
APPLIANCE := $(B)/appliance
PINGER := $(B)/rootfs/pinger
NETUP := $(B)/rootfs/netup
LOCKDOWN := $(B)/rootfs/lockdown
IMAGE_STAMP := $(B)/.deps-image
IMAGE_INPUTS := $(BINS) $(PINGER) $(NETUP) $(LOCKDOWN) $(BUSYBOX) $(QEMU_KERNEL) $(IMAGE_STAMP) $(ARCH_FILE)

$(IMAGE_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh image $(if $(DEPS_ARCH),image-$(ARCH))
	@touch $@

# the appliance's own programs (rootfs/*.c): one object each
$(PINGER) $(NETUP) $(LOCKDOWN): $(B)/rootfs/%: $(B)/obj/rootfs/%.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

.PHONY: image boot
image: $(IMAGE_INPUTS)
	@sh rootfs/build.sh -f $(FORMAT) $(B) $(APPLIANCE)

demo: $(IMAGE_INPUTS)
	@sh rootfs/demo.sh $(B)

boot: image
	@sh rootfs/qemu.sh boot $(B) $(APPLIANCE)

CHECK_INPUTS += $(PINGER) $(NETUP) $(LOCKDOWN) $(IMAGE_STAMP)

# the appliance test alone (tests/qemu/test_appliance.sh, about 25 s)
.PHONY: check-appliance
check-appliance: $(IMAGE_INPUTS) $(TEST_BINS) $(QEMU_TOOL) $(CHECK_STAMP)
	@sh tests/qemu/test_appliance.sh $(B)
# ---- end of the appliance block -------------------------------------------

# ---- other architectures: make ARCH=arm64 check (or armhf) ---------------
# That build's unit and system tests under qemu-user, which binfmt_misc
# makes run its programs here with their own credentials (mk/binfmt.sh;
# tests/cross/qemu_user.sh, and tests/cross/qemu-user.skip for what
# qemu-user cannot carry), and its appliance booted in qemu-system on
# Debian's kernel for it (tests/cross/appliance.sh).  make check builds
# those of CROSS_CHECK too (CROSS_CHECK= leaves them out) and boots their
# appliances; make check-cross runs their tests under qemu-user (about 25
# minutes for both: beyond make check's 30 minutes; .ci/run runs it too).
CROSS_CHECK ?= arm64 armhf
USER_STAMP := $(B)/.deps-user
.PHONY: check-inputs cross-inputs
ifneq ($(DEPS_ARCH),)
$(USER_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh user-$(ARCH)
	@touch $@

check-inputs: all $(UNIT_BINS) $(TEST_BINS) $(QEMU_TOOL) $(IMAGE_INPUTS) $(CHECK_STAMP) $(USER_STAMP)
endif

cross-inputs:
	@for a in $(CROSS_CHECK); do $(MAKE) --no-print-directory ARCH=$$a B=$(B)/$$a check-inputs || exit 1; done

.PHONY: check-cross
check-cross: $(CHECK_STAMP) cross-inputs
	@CROSS_CHECK="$(CROSS_CHECK)" TIERS=cross-user UNIT=no sh tests/run $(B)
# ---- end of the other architectures ---------------------------------------

# ---- the Debian package: make deb (mk/deb.sh, debian/) -------------------
#   make deb           build/deb/capinit_VERSION_ARCH.deb: the three programs
#       in /usr/sbin, capctl-import in /usr/lib/capinit, the man pages,
#       /etc/capinit, a GRUB menu entry; it installs beside systemd
#       (docs/debian.md).  make ARCH=arm64 deb (or
#       armhf) packs that build's programs.
DEB_STAMP := $(B)/.deps-deb
DEB := build/deb/capinit_$(VERSION)_$(DEB_ARCH).deb

$(DEB_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh deb
	@touch $@

$(DEB): $(BINS) $(HELPER_BINS) $(MANS) $(wildcard debian/* debian/source/*) mk/deb.sh | $(DEB_STAMP)
	$(say) DEB $@
	$(Q)sh mk/deb.sh $(B) $(DEB_ARCH) $(VERSION) build/deb >/dev/null

.PHONY: deb deb-all
deb: $(DEB)

# the three architectures' packages, which make check-debian's lintian
# checks (tests/debian/test_package.sh)
deb-all: $(DEB)
	@for a in $(filter-out $(DEB_ARCH),amd64 arm64 armhf); do $(MAKE) --no-print-directory ARCH=$$a deb || exit 1; done
# ---- end of the Debian package block --------------------------------------

# ---- the Debian image (rootfs/debian/): make debian, boot-debian, check-debian
#   make debian        build/debian/disk.ext4, vmlinuz, initrd.img: Debian 12
#       from Debian's packages (mmdebstrap; the .deb files cached in
#       build/debian/cache), systemd as Debian installs it, and capinit's
#       own package (make deb) with rootfs/debian/overlay's services.
#       DEBIAN_SSH_KEY=FILE.pub goes into root's authorized_keys.
#   make boot-debian   boot it, interactive (DEBIAN_INIT=systemd for
#       systemd); 127.0.0.1:2222, 2525, 8080 are the guest's 22, 25, 80
#   make check-debian  the end-to-end tests (tests/debian/), which .ci/run
#       runs after make check
#   make debian DEBIAN_SERVICES=import   and build/debian/disk-import.ext4:
#       the daemons' files made by capctl import from the image's own
#       units (rootfs/debian/import.sh), then refined by capctl learn in
#       the image booted once (rootfs/debian/learn.sh); make check-debian
#       DEBIAN_SERVICES=import tests it too (tests/debian/test_imported.sh)
#   make debian-learn-hand   capctl learn from the hand-written files, in
#       disk.ext4 booted once (rootfs/debian/learn.sh BUILDDIR hand, about
#       11 minutes): its proposals and reports in build/debian/learn-hand/,
#       which the comparison in docs/debian.md reads (rootfs/debian/compare.py)
DEBIAN_STAMP := $(B)/.deps-debian
DEBIAN_DISK := $(B)/debian/disk.ext4
DEBIAN_INPUTS := $(DEB) $(wildcard rootfs/debian/*.sh) $(shell find rootfs/debian/overlay -type f 2>/dev/null)

$(DEBIAN_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh debian
	@touch $@

# the key given once is kept (build/debian/user_key.pub) until another is
DEBIAN_USER_KEY := $(B)/debian/user_key.pub
ifneq ($(DEBIAN_SSH_KEY),)
ifneq ($(shell cmp -s '$(DEBIAN_SSH_KEY)' $(DEBIAN_USER_KEY) && echo same),same)
$(DEBIAN_USER_KEY): FORCE
endif
endif
$(DEBIAN_USER_KEY):
	@mkdir -p $(@D)
	@if [ -n '$(DEBIAN_SSH_KEY)' ]; then cp '$(DEBIAN_SSH_KEY)' $@; else : > $@; fi

$(DEBIAN_DISK): $(DEBIAN_INPUTS) $(DEBIAN_USER_KEY) | $(DEBIAN_STAMP)
	@DEBIAN_SERVICES=hand sh rootfs/debian/build.sh $(B) $(DEB)

DEBIAN_IMPORT_DISK := $(B)/debian/disk-import.ext4
$(DEBIAN_IMPORT_DISK): $(DEBIAN_INPUTS) $(DEBIAN_USER_KEY) | $(DEBIAN_STAMP) $(DEBIAN_DISK)
	@DEBIAN_SERVICES=import sh rootfs/debian/build.sh $(B) $(DEB)
	@sh rootfs/debian/learn.sh $(B)

.PHONY: debian boot-debian check-debian debian-learn-hand
debian-learn-hand: $(DEBIAN_DISK)
	@sh rootfs/debian/learn.sh $(B) hand

debian: $(DEBIAN_DISK)
ifeq ($(DEBIAN_SERVICES),import)
debian: $(DEBIAN_IMPORT_DISK)
endif

boot-debian: debian
	@sh rootfs/debian/qemu.sh boot $(B)

check-debian: debian deb-all $(CHECK_STAMP)
	@TIERS=debian UNIT=no sh tests/run $(B)
# ---- end of the Debian image block ----------------------------------------


# ---- the container image: make oci, check-oci ------------------------------
#   make oci         build/oci/capinit.tar (an oci-archive) and build/oci/layout
#       (the same OCI image layout, unpacked): capinit, capctl, busybox and
#       rootfs/oci's example services, entrypoint `capinit --container -c
#       /etc/capinit` (mk/oci.sh; reproducible: SOURCE_DATE_EPOCH)
#   make check-oci   the image under runc and crun (tests/oci/, 70-80 s;
#       TIERS=oci in tests/run), which .ci/run may run beside make check,
#       then the peers' suites (tests/peers/, make check-peers)
#   make check-peers dumb-init's and tini's own test suites against capinit
#       --container (tests/peers/: Debian's source packages into
#       build/peers, mk/deps.sh peers; about 2 minutes: TIERS=peers)
OCI_STAMP := $(B)/.deps-oci
OCI := $(B)/oci/capinit.tar

$(OCI_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh oci
	@touch $@

$(OCI): $(B)/bin/capinit $(B)/bin/capctl $(BUSYBOX) $(ARCH_FILE) mk/oci.sh $(shell find rootfs/oci -type f 2>/dev/null) | $(OCI_STAMP)
	$(say) OCI $@
	$(Q)sh mk/oci.sh $(B) $(DEB_ARCH) $(B)/oci >/dev/null

.PHONY: oci check-oci check-peers
oci: $(OCI)

check-oci: $(OCI) $(CHECK_STAMP)
	@TIERS="oci peers" UNIT=no sh tests/run $(B)

check-peers: all $(CHECK_STAMP)
	@TIERS=peers UNIT=no sh tests/run $(B)
# ---- end of the container image block -------------------------------------

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BINS) $(DESTDIR)$(SBINDIR)/
	install -m 0755 $(HELPER_BINS) $(DESTDIR)$(LIBEXECDIR)/
	for m in $(MANS); do \
	  s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done

# ---- benchmark: make bench, make bench-quick (tests/bench/run.sh) --------
# Not part of make check.  Builds capinit, the benchmark's own programs
# (static musl, like the test probe) and installs the peers (mk/deps.sh
# bench: s6, runit, execline, gnuplot, and iproute2 and hostname for the
# containers' reference chain); runs as root.  bench writes
# docs/benchmarks.md and docs/bench-*.svg, and also boots the appliance in
# QEMU (BENCH_BOOTS=3 times, TCG): it needs make image's inputs (QEMU, the
# kernel, pinger, busybox; run.sh builds the image itself); then once more
# for its timeline (docs/boot-appliance.svg, tests/bench/appliance_timeline.sh),
# and the Debian image under both inits (tests/bench/debian.sh).  bench-quick
# prints the ratio table only (about a minute and a half, no boot: no
# image needed).
BENCH_BINS := $(addprefix $(B)/bench/,svc_record baseline nsrun privsyscalls netns_settle bootwatch filter_cost)
BENCH_STAMP := $(B)/.deps-bench

.PHONY: bench bench-quick clean-bench

$(BENCH_STAMP): mk/deps.sh
	@mkdir -p $(B)
	@sh mk/deps.sh bench
	@touch $@

$(B)/bench/%: $(B)/obj/tests/bench/%.o
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

# the filter's microbenchmark, and the privilege sequence's filter, run
# the engine's own filter_apply()
$(B)/bench/filter_cost $(B)/bench/privsyscalls: $(B)/bench/%: $(B)/obj/tests/bench/%.o $(ENGINE_OBJ) $(CONF_OBJ)
	$(LINK)

bench: all $(BENCH_BINS) $(BENCH_STAMP) $(IMAGE_INPUTS) debian
	@sh tests/bench/run.sh $(B) full
	@sh tests/bench/appliance_timeline.sh $(B) docs/boot-appliance.svg
	@sh tests/bench/debian.sh $(B) full

# the Debian image under systemd and under capinit, side by side (also part
# of make bench): 5 rounds (BENCH_DEBIAN_ROUNDS), writes docs/debian.md's table and
# docs/boot-debian.svg; the quick variant boots each init once and only
# prints the table
.PHONY: bench-debian bench-debian-quick
bench-debian: debian
	@sh tests/bench/debian.sh $(B) full

bench-debian-quick: debian
	@sh tests/bench/debian.sh $(B) quick

bench-quick: all $(BENCH_BINS) $(BENCH_STAMP)
	@sh tests/bench/run.sh $(B) quick

clean: clean-bench
clean-bench:
	rm -rf $(B)/bench $(B)/obj/tests/bench
# ---- end of the benchmark block -------------------------------------------

# ---- robustness: make robustness (tests/robust/run.sh) -------------------
# Not part of make check, whose robust tier runs the same tests smaller.
# At issue 9's scale (100 000 restarts, 100 000 orphans, 1000 services x
# 100 start/stop rounds, 16 clients x 300 s, 100 MB of log), the limits and
# hostile-input tests, the fault matrix, the robust tests again against the
# ASan + UBSan build (build-asan/), and each fuzz target until
# ROBUST_FUZZ_RUNS executions (10^7; 0 keeps the last recorded run); then
# writes docs/robustness.md.  Runs as root; about 2 h on 2 CPUs, most of it
# fuzzing (svc and explain: about 5000 executions/s).
ROBUST_FUZZ_RUNS ?= 10000000
.PHONY: robustness robustness-asan
robustness: all $(UNIT_BINS) $(TEST_BINS) $(BUSYBOX) $(FUZZ_BINS) $(QEMU_TOOL) $(QEMU_KERNEL) $(CHECK_STAMP)
	@$(MAKE) --no-print-directory SAN=1 robustness-asan
	@ROBUST_FUZZ_RUNS=$(ROBUST_FUZZ_RUNS) sh tests/robust/run.sh $(B)

robustness-asan: all $(TEST_BINS) $(BUSYBOX) $(CHECK_STAMP)
# ---- end of the robustness block ------------------------------------------

clean:
	rm -rf $(B)/bin $(B)/obj $(B)/obj-fault $(B)/obj-fixture $(B)/man $(B)/tests $(B)/check $(B)/fuzz

distclean:
	rm -rf $(B)

# ---- make check: the one rule --------------------------------------------
check: $(CHECK_INPUTS)
	@$(CHECK_ENV) sh tests/run $(B)

-include $(shell find $(B)/obj $(B)/obj-fault $(B)/obj-fixture -name '*.d' 2>/dev/null)
