changed:
  test.succeed_with_changes
quiet:
  test.succeed_without_changes
failed:
  test.fail_with_changes
fires:
  test.succeed_without_changes:
    - watch:
      - test: changed
      - test: quiet
own_changes:
  test.succeed_with_changes:
    - watch:
      - test: changed
no_fire:
  test.succeed_without_changes:
    - watch:
      - test: quiet
watch_failed:
  test.succeed_without_changes:
    - watch:
      - test: failed
overrides:
  test.configurable_test_state:
    - changes: False
    - result: True
    - comment: configured
    - watch:
      - test: changed
by_id_only:
  test.nop:
    - watch:
      - changed
sls_watch:
  test.nop:
    - watch:
      - sls: other
