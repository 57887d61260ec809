"""Shared by the compatibility entry points: exec a kp program in place.

The program is looked up next to this folder (../bin, a build tree) and then
on PATH; the arguments pass through unchanged.
"""
import os
import shutil
import sys


def run(prog):
    here = os.path.dirname(os.path.realpath(__file__))
    local = os.path.join(here, "..", "bin", prog)
    path = local if os.access(local, os.X_OK) else shutil.which(prog)
    if path is None:
        sys.stderr.write("%s: %s not found: run 'make' in the kp folder or install kp\n"
                         % (os.path.basename(sys.argv[0]), prog))
        sys.exit(4)
    os.execv(path, [prog] + sys.argv[1:])
