# kp build configuration: paths and flags live here, the rules in Makefile.
VERSION   = 0.1.0
PREFIX    = /usr/local
MANPREFIX = $(PREFIX)/share/man
DATADIR   = $(PREFIX)/share/kp

CC        ?= cc
PKG_CONFIG ?= pkg-config

KP_CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
             -Wshadow -Wstrict-prototypes -Wmissing-prototypes -pthread \
             -DKP_VERSION=\"$(VERSION)\" -DKP_DATADIR=\"$(DATADIR)\"
OPTFLAGS   = -O2 -g
DEPS_CFLAGS != $(PKG_CONFIG) --cflags libfyaml jansson
DEPS_LIBS   != $(PKG_CONFIG) --libs libfyaml jansson
CHECK_CFLAGS != $(PKG_CONFIG) --cflags check
CHECK_LIBS   != $(PKG_CONFIG) --libs check

# The programs are linked fully static when the static archives are there
# (Debian 12: libc6-dev, libfyaml-dev and libjansson-dev ship them): the
# dynamic loader and libc's relocations cost 1-2 ms a run on the 2-vCPU VM,
# a third of a small kp-decide or kp-extract (docs/performance.md), and the
# same binaries run on a host without libfyaml or jansson (the GPU machine).
# STATIC=0 links them dynamically, as valgrind's memcheck needs (it finds a
# program's malloc through the dynamic loader); SANITIZE=1 implies it.  The
# unit tests and build tools are always dynamic.
ifeq ($(SANITIZE),1)
override STATIC = 0
endif
ifndef STATIC
STATIC != t=$$(mktemp) && printf 'int main(void) { return 0; }\n' | \
	$(CC) -x c - -static -pthread -o "$$t" -lfyaml -ljansson -lm >/dev/null 2>&1; \
	r=$$?; rm -f "$$t"; [ "$$r" = 0 ] && echo 1 || echo 0
endif
ifeq ($(STATIC),1)
PROG_LIBS = -static -lfyaml -ljansson -lm -lpthread
else
PROG_LIBS = $(DEPS_LIBS)
endif

# make SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer, no recovery.
ifeq ($(SANITIZE),1)
OPTFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LDFLAGS = -fsanitize=address,undefined
endif
