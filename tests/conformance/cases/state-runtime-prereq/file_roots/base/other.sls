in_other:
  test.succeed_with_changes
