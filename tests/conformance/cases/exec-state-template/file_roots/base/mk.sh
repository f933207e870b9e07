#!/bin/sh
cat > /tmp/brine-exec-state-template.sls <<'X'
a:
  test.succeed_with_changes:
    - name: {{ grains['id'] }}
b:
  test.nop
c:
  test.fail_without_changes:
    - require:
      - test: a
X
echo ok
