app_common:
  test.succeed_without_changes: []
