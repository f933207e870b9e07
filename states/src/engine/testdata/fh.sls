first:
  test.succeed_with_changes
stopper:
  test.fail_without_changes:
    - failhard: True
never:
  test.nop
