c_fail:
  test.fail_without_changes
b_req_fail:
  test.succeed_with_changes:
    - require:
      - test: c_fail
a_pre_reqfail:
  test.succeed_with_changes:
    - prereq:
      - test: b_req_fail
shared_b:
  test.succeed_with_changes
a1:
  test.succeed_with_changes:
    - prereq:
      - test: shared_b
a2:
  test.succeed_without_changes:
    - prereq:
      - test: shared_b
pin:
  test.succeed_with_changes:
    - prereq_in:
      - test: pin_target
pin_target:
  test.succeed_with_changes
chg:
  test.succeed_with_changes
b_watch:
  test.succeed_without_changes:
    - watch:
      - test: chg
a_watch:
  test.succeed_with_changes:
    - prereq:
      - test: b_watch
a_fails:
  test.fail_with_changes:
    - prereq:
      - test: b_after_fail
b_after_fail:
  test.succeed_with_changes
missing_pre:
  test.nop:
    - prereq:
      - test: nothing_here
