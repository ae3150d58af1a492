# Tier-aware memory cgroup limits: build the patched 6.12 guest kernel, the
# initramfs, boot the two-tier QEMU guest, record and report.
#
#   make run    build everything, boot, record the default scenario, report
#   make test   host checks + the guest suite booted with and without
#               cgroup.memory=tiered_limits; ends with "N passed, N failed"
#   make check  checkpatch --strict on every patch, build every prefix
#   make bench  benchmarks: figures and ratios, never a verdict
#   make fuzz   the analyzer's decoder under libFuzzer, bounded in time
#   make mutations  break each enforcement point in turn, show which guest
#               tests catch it (a kernel build and a boot per mutation)
#   make soak   the stress boot of make test on the debug kernel for longer:
#               make soak SECONDS=1800 [SEED=N] (tierstress's seed)
#
# Each installs what is missing first (make deps).

SHELL := /bin/bash
BUILD := build
GUEST := $(BUILD)/guest
GUEST_CFLAGS := -static -O2 -std=gnu11 -Wall -Wextra -Werror

WORKLOADS := $(patsubst tracing/workloads/%.c,$(GUEST)/bin/%,$(wildcard tracing/workloads/*.c))
GUEST_TESTS := $(patsubst tests/guest/%.c,$(GUEST)/tests/%,$(wildcard tests/guest/*.c))
GUEST_FILES := $(shell find initramfs tracing tests/guest -type f 2>/dev/null)

.PHONY: all deps kernel kernel-debug perf initramfs analyzer install run test check bench \
	fuzz fixtures mutations soak \
	clean distclean

all: kernel initramfs

deps:
	@scripts/deps.sh

kernel:
	@scripts/kernel.sh build

# The same series with patches/debug.config (lockdep, KASAN, kmemleak, ...):
# build/bzImage-debug, which make test boots too
kernel-debug:
	@scripts/kernel.sh build-debug

# perf from the patched tree, static: the guest carries it, the host reads
# the guest's perf.data with it
PERF := $(BUILD)/perf/perf
perf:
	@scripts/kernel.sh perf
$(PERF):
	@scripts/kernel.sh perf

$(GUEST)/bin/%: tracing/workloads/%.c tracing/workloads/slowtier.h
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<
$(GUEST)/tests/%: tests/guest/%.c tracing/workloads/slowtier.h
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

# The kernel's cgroup memory selftests, from the tree "make kernel" made
SELFTESTS := $(BUILD)/linux/tools/testing/selftests/cgroup
$(GUEST)/bin/test_memcontrol: $(SELFTESTS)/test_memcontrol.c $(SELFTESTS)/cgroup_util.c \
		tests/guest/selftests/line-buffered.c
	@mkdir -p $(@D)
	@echo "  CC      $@ (from the kernel tree)"
	@gcc -static -Wall -pthread -w -I$(SELFTESTS)/.. -o $@ $^ 2>&1 | \
		grep -v -e getaddrinfo -e 'in function .tcp_client' || true

# The kernel's selftest of tiered limits, from the same tree
$(GUEST)/bin/test_memcg_tiers: $(SELFTESTS)/test_memcg_tiers.c $(SELFTESTS)/cgroup_util.c
	@mkdir -p $(@D)
	@echo "  CC      $@ (from the kernel tree)"
	@gcc -static -O2 -Wall -I$(SELFTESTS) -I$(SELFTESTS)/.. -o $@ $^

# The guest carries the analyzer (its live top), the trace-cmd plugin and
# the exporter too
ANALYZER := analysis/memcg-tier-report analysis/build/plugins/plugin_memcg_tier.so
$(ANALYZER) &: $(wildcard analysis/src/*.[ch] analysis/plugin/*.c) analysis/Makefile
	@$(MAKE) --no-print-directory -C analysis

$(BUILD)/initramfs.cpio.gz: $(WORKLOADS) $(GUEST_TESTS) $(GUEST_FILES) \
		$(GUEST)/bin/test_memcontrol $(GUEST)/bin/test_memcg_tiers \
		$(ANALYZER) analysis/memcg-tier-exporter \
		$(PERF)
	@initramfs/build.sh $(GUEST) $@

initramfs: $(BUILD)/initramfs.cpio.gz

analyzer:
	@$(MAKE) --no-print-directory -C analysis

# The analyzer, its man page, the exporter, the plugin and the systemd
# unit under PREFIX (/usr/local), DESTDIR for staging
install:
	@$(MAKE) --no-print-directory -C analysis install

run: deps
	@$(MAKE) --no-print-directory kernel perf initramfs analyzer
	@scripts/run.sh

test: deps
	@$(MAKE) --no-print-directory kernel perf initramfs analyzer
	@tests/run.sh

check: deps
	@scripts/check-series.sh

bench: deps
	@$(MAKE) --no-print-directory kernel perf initramfs analyzer
	@scripts/bench.sh

mutations: deps
	@$(MAKE) --no-print-directory kernel perf initramfs
	@tests/mutations.sh; status=$$?; scripts/kernel.sh build >/dev/null; exit $$status

soak: deps
	@$(MAKE) --no-print-directory kernel-debug perf initramfs
	@scripts/soak.sh $(or $(SECONDS),1800) $(SEED)

fuzz:
	@scripts/deps.sh clang libclang-rt-14-dev
	@$(MAKE) --no-print-directory -C analysis fuzz

fixtures: deps
	@$(MAKE) --no-print-directory kernel perf initramfs
	@scripts/fixtures.sh

clean:
	rm -rf out $(GUEST) $(BUILD)/initramfs.cpio.gz
	@$(MAKE) --no-print-directory -C analysis clean

distclean:
	rm -rf out $(BUILD)
