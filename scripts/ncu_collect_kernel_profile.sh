#!/bin/sh
# Compatibility entry point: runs kp-collect with the same arguments (see man kp-collect).
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if [ -x "$here/../bin/kp-collect" ]; then
	exec "$here/../bin/kp-collect" "$@"
fi
if command -v kp-collect >/dev/null 2>&1; then
	exec kp-collect "$@"
fi
echo "$(basename -- "$0"): kp-collect not found: run 'make' in the kp folder or install kp" >&2
exit 4
