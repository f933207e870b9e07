first:
  test.succeed_with_changes
soft:
  test.fail_without_changes:
    - failhard: False
warn:
  test.configurable_test_state:
    - result: True
    - changes: False
    - failhard: True
hard_none:
  test.fail_with_changes:
    - failhard: True
after:
  test.nop
