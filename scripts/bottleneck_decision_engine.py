#!/usr/bin/env python3
"""Compatibility entry point: runs kp-decide with the same arguments (man kp-decide)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from _kpexec import run  # noqa: E402

run("kp-decide")
