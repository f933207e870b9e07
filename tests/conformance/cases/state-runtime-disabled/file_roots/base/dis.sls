first:
  test.succeed_with_changes
turned_off:
  test.fail_without_changes
needs_off:
  test.nop:
    - require:
      - test: turned_off
cfg:
  test.configurable_test_state
last:
  test.nop
