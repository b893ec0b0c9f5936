#!/usr/bin/env bash
# The tests of the repository's shell scripts (`make script-tests`, part of `make test`):
# ShellCheck over every script in the repository (warnings and errors fail), then each
# Tests/Scripts/*-test.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
status=0
mapfile -t scripts < <(git ls-files -z | xargs -0 grep -l -m1 -E '^#!.*\b(ba)?sh\b' 2>/dev/null)
if shellcheck -S warning "${scripts[@]}"; then
  echo "shellcheck: ${#scripts[@]} scripts, no warnings"
else
  status=1
fi
for test in Tests/Scripts/*-test.sh; do
  "$test" || status=1
done
exit "$status"
