first:
  test.succeed_with_changes
dep:
  test.nop:
    - require:
      - test: stopper
stopper:
  test.fail_without_changes:
    - failhard: True
    - order: last
never:
  test.nop
