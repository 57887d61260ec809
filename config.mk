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

# make STATIC=1: fully static programs, so that a binary built on Debian 12
# runs on a host without libfyaml or jansson (the GPU machine), and starts
# without the dynamic loader: `--version` in ~1 ms less than /bin/true here
# (docs/performance.md).  The default build stays dynamic for valgrind and
# the sanitizers.
ifeq ($(STATIC),1)
DEPS_LIBS = -static -lfyaml -ljansson -lm -lpthread
endif

# make SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer, no recovery.
ifeq ($(SANITIZE),1)
OPTFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LDFLAGS = -fsanitize=address,undefined
endif
