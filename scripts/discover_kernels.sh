#!/bin/sh
# Compatibility entry point: runs kp-discover with the same arguments (see man kp-discover).
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if [ -x "$here/../bin/kp-discover" ]; then
	exec "$here/../bin/kp-discover" "$@"
fi
if command -v kp-discover >/dev/null 2>&1; then
	exec kp-discover "$@"
fi
echo "$(basename -- "$0"): kp-discover not found: run 'make' in the kp folder or install kp" >&2
exit 4
