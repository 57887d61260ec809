# kp: kernel profiling tools.  `make`, `make check`, `make install`.
include config.mk

LIBSRC  := $(sort $(wildcard lib/*.c))
LIBOBJ  := $(LIBSRC:lib/%.c=build/lib/%.o)
LIBHDR  := $(wildcard lib/*.h)
CMDSRC  := $(sort $(wildcard cmd/*.c))
PROGS   := $(CMDSRC:cmd/%.c=bin/%)
SCRIPTS := $(wildcard cmd/*.sh)
UNITSRC := $(sort $(wildcard tests/unit/check_*.c))
UNITBIN := $(UNITSRC:tests/unit/%.c=build/tests/%)
MAN1    := $(wildcard man/*.1)
MAN5    := $(wildcard man/*.5)
MAN7    := $(wildcard man/*.7)

CFLAGS_ALL = $(KP_CFLAGS) $(OPTFLAGS) $(DEPS_CFLAGS) -Ilib $(CFLAGS)
LDFLAGS_ALL = -pthread $(SAN_LDFLAGS) $(LDFLAGS)

PROFILE := $(if $(wildcard cmd/kp-profile.sh),bin/kp-profile)

all: $(PROGS) $(PROFILE)

# Rebuild everything when the flavour (SANITIZE, CFLAGS) changes.
FLAGS_NOW = $(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) $(DEPS_LIBS)
build/.flags: FORCE
	@mkdir -p build
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
# ... and relink the programs when only their libraries do (STATIC).
build/.proglibs: FORCE
	@mkdir -p build
	@echo '$(PROG_LIBS)' | cmp -s - $@ || echo '$(PROG_LIBS)' > $@

build/lib/%.o: lib/%.c $(LIBHDR) build/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The shipped rules compiled in (lib/rules_int.h, struct kp_rules_builtin):
# tools/rules-embed parses them with the library's own loader, linked from
# the objects without the generated one.
RULES_YAML = references/rules/bottleneck_rules.yaml

build/tools/rules-embed: tools/rules-embed.c $(LIBOBJ) $(LIBHDR) build/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ tools/rules-embed.c $(LIBOBJ) $(DEPS_LIBS) -lm

build/gen/rules_builtin.c: build/tools/rules-embed $(RULES_YAML)
	@mkdir -p $(@D)
	build/tools/rules-embed $(RULES_YAML) $@

build/gen/rules_builtin.o: build/gen/rules_builtin.c lib/rules_int.h build/.flags
	$(CC) $(CFLAGS_ALL) -c -o $@ build/gen/rules_builtin.c

build/libkp.a: $(LIBOBJ) build/gen/rules_builtin.o
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ) build/gen/rules_builtin.o

build/cmd/%.o: cmd/%.c $(LIBHDR) build/.flags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

bin/%: build/cmd/%.o build/libkp.a build/.proglibs
	@mkdir -p bin
	$(CC) $(LDFLAGS_ALL) -o $@ $< build/libkp.a $(PROG_LIBS) -lm

bin/kp-profile: cmd/kp-profile.sh
	@mkdir -p bin
	sed 's/@VERSION@/$(VERSION)/' cmd/kp-profile.sh > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

build/tests/%: tests/unit/%.c build/libkp.a tests/unit/kp_check.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CHECK_CFLAGS) -Itests/unit -DKP_FIXTURES=\"$(CURDIR)/tests/fixtures\" \
		$(LDFLAGS_ALL) -o $@ $< build/libkp.a $(DEPS_LIBS) $(CHECK_LIBS) -lm

# The whole test suite: unit tests, command-line cases, documentation checks.
check: all $(UNITBIN)
	@sh tests/run-all.sh $(UNITBIN)

bench: all
	@sh tests/bench/run.sh

fuzz:
	@sh tests/fuzz/run.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 $(DESTDIR)$(MANPREFIX)/man5 \
		$(DESTDIR)$(MANPREFIX)/man7 $(DESTDIR)$(DATADIR)/rules $(DESTDIR)$(DATADIR)/nvidia/architectures
	cp -f $(PROGS) $(PROFILE) $(DESTDIR)$(PREFIX)/bin/
	cp -f $(MAN1) $(DESTDIR)$(MANPREFIX)/man1/
	test -z "$(MAN5)" || cp -f $(MAN5) $(DESTDIR)$(MANPREFIX)/man5/
	test -z "$(MAN7)" || cp -f $(MAN7) $(DESTDIR)$(MANPREFIX)/man7/
	test ! -d references/rules || cp -f references/rules/*.yaml $(DESTDIR)$(DATADIR)/rules/
	test ! -f references/nvidia/architectures/gpu_specs.yaml || \
		cp -f references/nvidia/architectures/gpu_specs.yaml $(DESTDIR)$(DATADIR)/nvidia/architectures/

uninstall:
	cd $(DESTDIR)$(PREFIX)/bin && rm -f $(notdir $(PROGS)) kp-profile

clean:
	rm -rf build bin

.PHONY: all check bench fuzz install uninstall clean FORCE
# Keep the objects of the programs (no "rm build/cmd/*.o" after a build).
.SECONDARY:
