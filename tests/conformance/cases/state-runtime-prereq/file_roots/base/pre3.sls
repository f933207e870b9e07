a:
  test.succeed_with_changes:
    - prereq:
      - test: b
b:
  test.succeed_with_changes:
    - require:
      - test: c
c:
  test.succeed_with_changes:
    - require:
      - test: a
d:
  test.succeed_with_changes:
    - prereq:
      - test: e
e:
  test.succeed_with_changes:
    - onchanges:
      - test: f
f:
  test.succeed_with_changes:
    - prereq:
      - test: d
