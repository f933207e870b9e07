first:
  test.succeed_with_changes
optout:
  test.fail_without_changes:
    - failhard: False
stopper:
  test.fail_without_changes
never:
  test.nop
