#!/usr/bin/env python3
"""Compatibility entry point: runs kp-gentarget with the same arguments.

Kept so that agents and scripts written for the old Python tool keep working;
all the work is done by the C program (see man kp-gentarget).
"""
import os
import shutil
import sys

PROG = "kp-gentarget"


def main():
    here = os.path.dirname(os.path.realpath(__file__))
    local = os.path.join(here, "..", "bin", PROG)
    path = local if os.access(local, os.X_OK) else shutil.which(PROG)
    if path is None:
        sys.stderr.write("%s: %s not found: run 'make' in the kp folder or install kp\n"
                         % (os.path.basename(__file__), PROG))
        sys.exit(4)
    os.execv(path, [PROG] + sys.argv[1:])


if __name__ == "__main__":
    main()
