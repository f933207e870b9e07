a_changes:
  test.succeed_with_changes:
    - prereq:
      - test: b_changes
b_changes:
  test.succeed_with_changes
a_nochange:
  test.succeed_with_changes:
    - prereq:
      - test: b_nochange
b_nochange:
  test.succeed_without_changes
a_fail:
  test.succeed_with_changes:
    - prereq:
      - test: b_fail
b_fail:
  test.fail_without_changes
b_first:
  test.succeed_with_changes
a_after:
  test.succeed_with_changes:
    - prereq:
      - test: b_first
