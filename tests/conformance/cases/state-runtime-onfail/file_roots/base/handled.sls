broken:
  test.fail_without_changes
fixer:
  test.succeed_with_changes:
    - onfail:
      - test: broken
    - onfail_stop: False
