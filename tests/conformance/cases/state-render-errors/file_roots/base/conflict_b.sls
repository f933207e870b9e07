shared_id:
  test.succeed_without_changes
